#include "tools/trace/event_json.h"

#include <cstring>
#include <iterator>

#include "tools/analysis/read/cuda_errors.h"
#include "tools/trace/json_cursor.h"
#include "tools/trace/time_origin.h"

namespace gprof::trace {
namespace {

// Driver API entry points are cu*, the runtime's cuda* (and __cuda*).
std::string_view api_category(const ApiInfo& info) {
  const bool driver = info.symbol.starts_with("cu") && !info.symbol.starts_with("cuda");
  return driver ? "cuda_driver" : "cuda_runtime";
}

// `"ph":"X","cat":"…"` and the rest of an event's head up to its name, as
// one literal per kind.
std::string_view gpu_head(GpuKind kind) {
  switch (kind) {
    case GpuKind::kMemcpy:
      return "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":";
    case GpuKind::kMemset:
      return "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":";
    case GpuKind::kSync:
      return "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":";
    default:
      return "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":";
  }
}

std::string_view counter_head(Counter counter) {
  switch (counter) {
    case Counter::kDeviceMemory:
      return "{\"ph\":\"C\",\"name\":\"device memory in use\"";
    case Counter::kHostMemory:
      return "{\"ph\":\"C\",\"name\":\"pinned host memory in use\"";
    case Counter::kGpuBusy:
      return "{\"ph\":\"C\",\"name\":\"GPU busy\"";
  }
  return "";
}

std::string escape(std::string_view text) {
  Buffer b;
  append_json_string(b, text);
  return std::string(b.data(), b.size());
}

void dim3(JsonCursor& c, std::string_view key, const Dim3& d) {
  c.text(key);
  c.number(d.x);
  c.put(',');
  c.number(d.y);
  c.put(',');
  c.number(d.z);
  c.put(']');
}

}  // namespace

const std::string& EventJson::escaped(uint32_t id) {
  if (id >= escaped_.size()) escaped_.resize(id + 1);
  std::optional<std::string>& text = escaped_[id];
  if (!text) text = escape(strings_.text(id));
  return *text;
}

const EventJson::ApiText& EventJson::api_text(const ApiInfo& info) {
  const auto id = static_cast<size_t>(info.id);
  if (id >= apis_.size()) apis_.resize(id + 1);
  std::optional<ApiText>& text = apis_[id];
  if (!text)
    text = ApiText{fmt::format("{{\"ph\":\"X\",\"cat\":\"{}\",\"name\":{}", api_category(info),
                               escape(info.display))};
  return *text;
}

EventJson::EventJson(EventOutput& out, const analysis::Interner& strings,
                     const std::vector<Place>& places, int64_t to_relative, uint64_t flow_base,
                     uint64_t async_base)
    : out_(out),
      strings_(strings),
      to_relative_(to_relative),
      flow_base_(flow_base),
      async_base_(async_base) {
  // `,"pid":P,"tid":T,"ts":` of each track, written once: every event has one.
  place_texts_.resize(places.size());
  for (size_t i = 0; i < places.size(); ++i) {
    Buffer b;
    fmt::format_to(std::back_inserter(b), ",\"pid\":{},\"tid\":{},\"ts\":", places[i].pid,
                   places[i].tid);
    PlaceText& text = place_texts_[i];
    std::memcpy(text.text, b.data(), b.size());
    text.size = static_cast<uint8_t>(b.size());
  }
}

void EventJson::place(JsonCursor& c, uint32_t track, uint64_t time_ns) {
  const PlaceText& text = place_texts_[track];
  // The whole array, a constant size: two vector moves instead of a call to
  // memcpy; the cursor's room (kFixed) holds the bytes past the text.
  std::memcpy(c.at(), text.text, sizeof(text.text));
  c.at() += text.size;
  c.microseconds(static_cast<int64_t>(time_ns) + to_relative_);
}

void EventJson::write(const Item& event) {
  if (event.sub != 0) {
    const bool start = event.kind == EventKind::kCall;
    flow(start, flow_base_ + (start ? event.flow_id : event.ref), event.track, event.start_ns);
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
  const CallPart& a = e.call;
  const ApiInfo* info = api_info(a.api);
  if (info == nullptr) return;  // the loader hands out known APIs only
  const ApiText& head = api_text(*info);
  const std::string* kernel =
      (info->fields & kFieldLaunch) && a.kernel != kNoIndex ? &escaped(a.kernel) : nullptr;
  std::string error;
  if (a.result != 0) {
    const std::string_view name = analysis::cuda_error_name(a.result);
    error = escape(name.empty() ? std::to_string(a.result) : std::string(name));
  }
  Buffer& b = out_.begin_event();
  {
    JsonCursor c(
        b, JsonCursor::kFixed + head.head.size() + (kernel ? kernel->size() : 0) + error.size());
    c.text(head.head);
    place(c, e.track, e.start_ns);
    c.text(",\"dur\":");
    c.microseconds(static_cast<int64_t>(e.dur_ns));
    c.text(",\"args\":{\"correlation\":");
    c.number(a.correlation);
    // Handles are pointers: hexadecimal text, as a debugger shows them. Not
    // "stream": tools for kineto traces (HTA) read that as the integer CUPTI
    // stream id of GPU work, and -1 or absent on CPU events.
    if (info->fields & kFieldStream) {
      c.text(",\"stream handle\":\"0x");
      c.hex(a.stream);
      c.put('"');
    }
    if (info->fields & kFieldBytes) {
      c.text(",\"bytes\":");
      c.number(a.bytes);
    }
    if (info->fields & kFieldLaunch) {
      if (kernel != nullptr) {
        c.text(",\"kernel\":");
        c.text(*kernel);
      }
      dim3(c, ",\"grid\":[", a.grid);
      dim3(c, ",\"block\":[", a.block);
      c.text(",\"shared memory\":");
      c.number(a.shared_mem);
    }
    if (!error.empty()) {
      c.text(",\"error\":");
      c.text(error);
    }
    c.text("}}");
  }
  out_.end_event();
}

void EventJson::gpu(const Item& e) {
  const GpuPart& r = e.gpu;
  const std::string& name = escaped(r.name);
  Buffer& b = out_.begin_event();
  {
    JsonCursor c(b, JsonCursor::kFixed + name.size());
    c.text(gpu_head(r.kind));
    c.text(name);
    place(c, e.track, e.start_ns);
    c.text(",\"dur\":");
    c.microseconds(static_cast<int64_t>(e.dur_ns));
    // The call's correlation, so that both ends of a flow say the same.
    c.text(",\"args\":{\"correlation\":");
    c.number(r.correlation);
    c.text(",\"device\":");
    c.number(r.device);
    c.text(",\"stream\":");
    // kineto's -1 for a sync on no stream (the context), which HTA reads so.
    if (r.kind == GpuKind::kSync && r.stream == 0)
      c.text("-1");
    else
      c.number(r.stream);
    if (r.kind == GpuKind::kSync) {
      c.text(",\"cuda_sync_kind\":");
      c.text(name);
    } else if (r.kind == GpuKind::kKernel) {
      dim3(c, ",\"grid\":[", r.launch.grid);
      dim3(c, ",\"block\":[", r.launch.block);
      c.text(",\"shared memory\":");
      c.number(r.launch.shared_mem);
      c.text(",\"registers per thread\":");
      c.number(r.launch.registers);
    } else {
      c.text(",\"bytes\":");
      c.number(r.bytes);
      // Bytes per nanosecond are GB/s.
      if (e.dur_ns != 0) {
        c.text(",\"memory bandwidth (GB/s)\":");
        c.at() = fmt::format_to(c.at(), "{:.3f}",
                                static_cast<double>(r.bytes) / static_cast<double>(e.dur_ns));
      }
    }
    if (r.graph != 0) {
      c.text(",\"graph\":");
      c.number(r.graph);
    }
    if (r.graph_node != 0) {
      c.text(",\"graph node\":");
      c.number(r.graph_node);
    }
    c.text("}}");
  }
  out_.end_event();
}

void EventJson::range(const Item& e) {
  const RangePart& r = e.range;
  const std::string& name = escaped(r.name);
  const bool domain = r.domain != analysis::Interner::kEmpty;
  const bool shapes = r.input_shapes != analysis::Interner::kEmpty;
  const bool args =
      e.kind != EventKind::kAsyncEnd && (domain || r.open_at_exit || r.seq || r.op_id || shapes);
  const std::string* domain_text = args && domain ? &escaped(r.domain) : nullptr;
  const std::string* shapes_text = args && shapes ? &escaped(r.input_shapes) : nullptr;
  Buffer& b = out_.begin_event();
  {
    JsonCursor c(b, JsonCursor::kFixed + name.size() + (domain_text ? domain_text->size() : 0) +
                        (shapes_text ? shapes_text->size() : 0));
    switch (e.kind) {
      case EventKind::kRange:
        c.text("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":");
        c.text(name);
        place(c, e.track, e.start_ns);
        c.text(",\"dur\":");
        c.microseconds(static_cast<int64_t>(e.dur_ns));
        break;
      case EventKind::kAsyncBegin:
      case EventKind::kAsyncEnd:
        c.text(e.kind == EventKind::kAsyncBegin
                   ? "{\"ph\":\"b\",\"cat\":\"user_annotation\",\"name\":"
                   : "{\"ph\":\"e\",\"cat\":\"user_annotation\",\"name\":");
        c.text(name);
        place(c, e.track, e.start_ns);
        c.text(",\"id\":");
        c.number(async_base_ + e.ref);
        break;
      default:
        c.text("{\"ph\":\"i\",\"cat\":\"user_annotation\",\"name\":");
        c.text(name);
        place(c, e.track, e.start_ns);
        c.text(",\"s\":\"t\"");
    }
    if (args) {
      c.text(",\"args\":{");
      bool first = true;
      // `"key":`, after a comma unless it is the first argument.
      const auto arg = [&](std::string_view key) {
        if (!first) c.put(',');
        first = false;
        c.text(key);
      };
      if (domain_text != nullptr) {
        arg("\"domain\":");
        c.text(*domain_text);
      }
      // PyTorch emit_nvtx numbers, by kineto's names for them: torch's own
      // sequence_nr (stored + 1 so that 0 can mean none).
      if (r.seq != 0) {
        arg("\"Sequence number\":");
        c.number(r.seq - 1);
      }
      if (r.op_id != 0) {
        arg("\"op_id\":");
        c.number(r.op_id);
      }
      // As text: kineto writes "Input Dims" as a JSON list, which the sizes
      // are, but the shim keeps them as torch printed them.
      if (shapes_text != nullptr) {
        arg("\"Input Dims\":");
        c.text(*shapes_text);
      }
      if (r.open_at_exit) {
        arg("\"open at exit\":");
        c.text("true");
      }
      c.put('}');
    }
    c.put('}');
  }
  out_.end_event();
}

void EventJson::counter(const Item& e) {
  const CounterPart& s = e.counter;
  Buffer& b = out_.begin_event();
  {
    JsonCursor c(b, JsonCursor::kFixed);
    c.text(counter_head(s.counter));
    place(c, e.track, e.start_ns);
    if (s.counter == Counter::kGpuBusy) {
      c.text(",\"args\":{\"%\":");
      c.at() = fmt::format_to(c.at(), "{:.1f}", s.value);
    } else {
      c.text(",\"args\":{\"bytes\":");
      c.number(static_cast<int64_t>(s.value));
    }
    c.text("}}");
  }
  out_.end_event();
}

void EventJson::flow(bool start, uint64_t id, uint32_t track, uint64_t time_ns) {
  Buffer& b = out_.begin_event();
  {
    JsonCursor c(b, JsonCursor::kFixed);
    c.text(start ? "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\""
                 : "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\"");
    place(c, track, time_ns);
    c.text(",\"id\":");
    c.number(id);
    // The end binds to the GPU slice it starts with (kineto's spelling).
    if (!start) c.text(",\"bp\":\"e\"");
    c.put('}');
  }
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
