#include "tools/trace/event_json.h"

#include <iterator>

#include "tools/analysis/read/cuda_errors.h"
#include "tools/trace/time_origin.h"

namespace gprof::trace {
namespace {

// Driver API entry points are cu*, the runtime's cuda* (and __cuda*).
std::string_view api_category(const ApiInfo& info) {
  const bool driver = info.symbol.starts_with("cu") && !info.symbol.starts_with("cuda");
  return driver ? "cuda_driver" : "cuda_runtime";
}

std::string_view gpu_category(GpuKind kind) {
  switch (kind) {
    case GpuKind::kMemcpy:
      return "gpu_memcpy";
    case GpuKind::kMemset:
      return "gpu_memset";
    default:
      return "kernel";
  }
}

std::string_view counter_name(Counter counter) {
  switch (counter) {
    case Counter::kDeviceMemory:
      return "device memory in use";
    case Counter::kHostMemory:
      return "pinned host memory in use";
    case Counter::kGpuBusy:
      return "GPU busy";
  }
  return "";
}

// Appends `,"key":` to `b`.
void key(Buffer& b, std::string_view name) {
  b.push_back(',');
  append_json_string(b, name);
  b.push_back(':');
}

void dim3(Buffer& b, std::string_view name, const Dim3& d) {
  key(b, name);
  fmt::format_to(std::back_inserter(b), "[{},{},{}]", d.x, d.y, d.z);
}

template <typename T>
void number(Buffer& b, std::string_view name, T value) {
  key(b, name);
  fmt::format_to(std::back_inserter(b), "{}", value);
}

void text(Buffer& b, std::string_view name, std::string_view value) {
  key(b, name);
  append_json_string(b, value);
}

}  // namespace

void EventJson::head(Buffer& b, std::string_view phase, std::string_view category,
                     std::string_view name, uint32_t track, uint64_t time_ns) {
  const Place& place = places_[track];
  b.append(std::string_view("{\"ph\":\""));
  b.append(phase);
  b.push_back('"');
  if (!category.empty()) text(b, "cat", category);
  text(b, "name", name);
  fmt::format_to(std::back_inserter(b), ",\"pid\":{},\"tid\":{},\"ts\":", place.pid, place.tid);
  append_microseconds(b, static_cast<int64_t>(time_ns) + to_relative_);
}

void EventJson::write(const Item& event) {
  if (event.sub != 0) {
    flow(event.kind == EventKind::kCall, flow_base_ + event.flow_id, event.track, event.start_ns);
    return;
  }
  switch (event.kind) {
    case EventKind::kCall:
      call(event);
      break;
    case EventKind::kGpu:
      gpu(event);
      break;
    case EventKind::kCounter:
      counter(event);
      break;
    default:
      range(event);
  }
}

void EventJson::call(const Item& e) {
  const CallPart& c = e.call;
  const ApiInfo* info = api_info(c.api);
  if (info == nullptr) return;  // the loader hands out known APIs only
  Buffer& b = out_.begin_event();
  head(b, "X", api_category(*info), info->display, e.track, e.start_ns);
  b.append(std::string_view(",\"dur\":"));
  append_microseconds(b, static_cast<int64_t>(e.dur_ns));
  b.append(std::string_view(",\"args\":{\"correlation\":"));
  fmt::format_to(std::back_inserter(b), "{}", c.correlation);
  // Handles are pointers: hexadecimal text, as a debugger shows them. Not
  // "stream": tools for kineto traces (HTA) read that as the integer CUPTI
  // stream id of GPU work, and -1 or absent on CPU events.
  if (info->fields & kFieldStream) text(b, "stream handle", fmt::format("0x{:x}", c.stream));
  if (info->fields & kFieldBytes) number(b, "bytes", c.bytes);
  if (info->fields & kFieldLaunch) {
    if (c.kernel != kNoIndex) text(b, "kernel", strings_.text(c.kernel));
    dim3(b, "grid", c.grid);
    dim3(b, "block", c.block);
    number(b, "shared memory", c.shared_mem);
  }
  if (c.result != 0) {
    const std::string_view error = analysis::cuda_error_name(c.result);
    text(b, "error", error.empty() ? std::to_string(c.result) : std::string(error));
  }
  b.append(std::string_view("}}"));
  out_.end_event();
}

void EventJson::gpu(const Item& e) {
  const GpuPart& r = e.gpu;
  Buffer& b = out_.begin_event();
  head(b, "X", gpu_category(r.kind), strings_.text(r.name), e.track, e.start_ns);
  b.append(std::string_view(",\"dur\":"));
  append_microseconds(b, static_cast<int64_t>(e.dur_ns));
  // The call's correlation, so that both ends of a flow say the same.
  b.append(std::string_view(",\"args\":{\"correlation\":"));
  fmt::format_to(std::back_inserter(b), "{}", r.correlation);
  number(b, "device", r.device);
  number(b, "stream", r.stream);
  if (r.kind == GpuKind::kKernel) {
    dim3(b, "grid", r.grid);
    dim3(b, "block", r.block);
    number(b, "shared memory", r.shared_mem);
    number(b, "registers per thread", r.registers);
  } else {
    number(b, "bytes", r.bytes);
    // Bytes per nanosecond are GB/s.
    if (e.dur_ns != 0) {
      key(b, "memory bandwidth (GB/s)");
      fmt::format_to(std::back_inserter(b), "{:.3f}",
                     static_cast<double>(r.bytes) / static_cast<double>(e.dur_ns));
    }
  }
  if (r.graph != 0) number(b, "graph", r.graph);
  if (r.graph_node != 0) number(b, "graph node", r.graph_node);
  b.append(std::string_view("}}"));
  out_.end_event();
}

void EventJson::range(const Item& e) {
  const RangePart& r = e.range;
  const std::string& name = strings_.text(r.name);
  Buffer& b = out_.begin_event();
  switch (e.kind) {
    case EventKind::kRange:
      head(b, "X", "user_annotation", name, e.track, e.start_ns);
      b.append(std::string_view(",\"dur\":"));
      append_microseconds(b, static_cast<int64_t>(e.dur_ns));
      break;
    case EventKind::kAsyncBegin:
    case EventKind::kAsyncEnd:
      head(b, e.kind == EventKind::kAsyncBegin ? "b" : "e", "user_annotation", name, e.track,
           e.start_ns);
      number(b, "id", async_base_ + e.ref);
      break;
    default:
      head(b, "i", "user_annotation", name, e.track, e.start_ns);
      b.append(std::string_view(",\"s\":\"t\""));
  }
  const bool domain = r.domain != analysis::Interner::kEmpty;
  const bool shapes = r.input_shapes != analysis::Interner::kEmpty;
  if (e.kind != EventKind::kAsyncEnd && (domain || r.open_at_exit || r.seq || r.op_id || shapes)) {
    b.append(std::string_view(",\"args\":{"));
    bool first = true;
    // `"key":`, after a comma unless it is the first argument.
    const auto arg = [&](std::string_view name) {
      if (!first) b.push_back(',');
      first = false;
      append_json_string(b, name);
      b.push_back(':');
    };
    if (domain) {
      arg("domain");
      append_json_string(b, strings_.text(r.domain));
    }
    // PyTorch emit_nvtx numbers, by kineto's names for them: torch's own
    // sequence_nr (stored + 1 so that 0 can mean none).
    if (r.seq != 0) {
      arg("Sequence number");
      fmt::format_to(std::back_inserter(b), "{}", r.seq - 1);
    }
    if (r.op_id != 0) {
      arg("op_id");
      fmt::format_to(std::back_inserter(b), "{}", r.op_id);
    }
    // As text: kineto writes "Input Dims" as a JSON list, which the sizes
    // are, but the shim keeps them as torch printed them.
    if (shapes) {
      arg("Input Dims");
      append_json_string(b, strings_.text(r.input_shapes));
    }
    if (r.open_at_exit) {
      arg("open at exit");
      b.append(std::string_view("true"));
    }
    b.push_back('}');
  }
  b.push_back('}');
  out_.end_event();
}

void EventJson::counter(const Item& e) {
  const CounterPart& s = e.counter;
  Buffer& b = out_.begin_event();
  head(b, "C", "", counter_name(s.counter), e.track, e.start_ns);
  if (s.counter == Counter::kGpuBusy)
    fmt::format_to(std::back_inserter(b), ",\"args\":{{\"%\":{:.1f}}}}}", s.value);
  else
    fmt::format_to(std::back_inserter(b), ",\"args\":{{\"bytes\":{}}}}}",
                   static_cast<int64_t>(s.value));
  out_.end_event();
}

void EventJson::flow(bool start, uint64_t id, uint32_t track, uint64_t time_ns) {
  Buffer& b = out_.begin_event();
  head(b, start ? "s" : "f", "ac2g", "ac2g", track, time_ns);
  number(b, "id", id);
  // The end binds to the GPU slice it starts with (kineto's spelling).
  if (!start) b.append(std::string_view(",\"bp\":\"e\""));
  b.push_back('}');
  out_.end_event();
}

void write_metadata(EventOutput& out, std::string_view name, Place place, std::string_view text) {
  Buffer& b = out.begin_event();
  b.append(std::string_view("{\"ph\":\"M\",\"name\":"));
  append_json_string(b, name);
  fmt::format_to(std::back_inserter(b), ",\"pid\":{},\"tid\":{},\"ts\":", place.pid, place.tid);
  // At the first event's time, not at 0, which DevTools drops (time_origin.h).
  append_microseconds(b, kLeadNs);
  b.append(std::string_view(",\"args\":{\"name\":"));
  append_json_string(b, text);
  b.append(std::string_view("}}"));
  out.end_event();
}

void write_sort_index(EventOutput& out, Place place, uint32_t index) {
  Buffer& b = out.begin_event();
  fmt::format_to(std::back_inserter(b),
                 "{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"tid\":{},\"ts\":",
                 place.pid, place.tid);
  append_microseconds(b, kLeadNs);
  fmt::format_to(std::back_inserter(b), ",\"args\":{{\"sort_index\":{}}}}}", index);
  out.end_event();
}

}  // namespace gprof::trace
