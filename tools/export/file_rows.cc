#include "tools/export/file_rows.h"
#include "formats/correlation_ids.h"

#include <algorithm>
#include <map>
#include <utility>

#include "tools/analysis/read/demangle.h"
#include "tools/analysis/read/gpu_names.h"
#include "tools/analysis/read/range_names.h"
#include "tools/export/enum_tables.h"
#include "tools/export/global_ids.h"
#include "tools/export/kernel_names.h"
#include "tools/trace/process_names.h"

namespace gprof::exporter {
namespace {

// Ids and times are unsigned in the file and signed in SQLite; none comes
// near 2^63.
int64_t i64(uint64_t value) {
  return static_cast<int64_t>(value);
}

// 0 means "none" in the file (correlation ids, graph ids): NULL, so that
// it joins nothing.
void set_optional(BatchInsert& b, int column, uint64_t value) {
  if (value == 0)
    b.set_null(column);
  else
    b.set(column, i64(value));
}

// The driver API (cuLaunchKernel...) as nsys classes it; gprof's runtime
// hooks and CUPTI's runtime callbacks are "cuda*".
bool driver_api(std::string_view symbol) {
  return symbol.starts_with("cu") && !symbol.starts_with("cuda") && !symbol.starts_with("__cuda");
}

// What each of the start/end sorters keeps before it spills to a temporary file.
constexpr size_t kRangeSortMemory = size_t{16} << 20;

}  // namespace

FileRows::FileRows(Inserts& inserts, StringIds& strings, int64_t global_pid, int64_t& next_event_id,
                   analysis::FileInfo& info)
    : in_(inserts),
      strings_(strings),
      global_pid_(global_pid),
      next_event_id_(next_event_id),
      info_(info),
      facts_(info),
      ranges_(kRangeSortMemory, [this](const analysis::Range& range, uint64_t opened,
                                       bool /*crossing*/) { write_range(range, opened); }),
      first_event_id_(next_event_id) {}

void FileRows::on_header(const pb::FileHeader& header) {
  facts_.header(header);
}

void FileRows::on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) {
  facts_.devices(devices);
}

void FileRows::on_string(const pb::StringEntry& entry) {
  // NVTX rows waiting to be inserted point into the texts.
  if (entry.kind() != pb::StringEntry::KERNEL && facts_.changes(entry)) in_.nvtx.flush();
  facts_.string(entry);
  if (entry.kind() == pb::StringEntry::KERNEL) kernel_ids_.erase(entry.id());
}

void FileRows::on_cupti(const pb::CuptiStatus& status) {
  facts_.cupti(status);
}

void FileRows::on_footer(const pb::Footer& footer) {
  facts_.footer(footer);
}

int64_t FileRows::api_name(ApiId api, std::string_view display) {
  auto [it, added] = api_names_.emplace(static_cast<uint16_t>(api), 0);
  if (added) it->second = strings_.id(display);
  return it->second;
}

// A million launches of one kernel name it once: the names are resolved,
// demangled and shortened per kernel id of the file.
const FileRows::KernelNames& FileRows::kernel_names(uint32_t kernel) {
  auto it = kernel_ids_.find(kernel);
  if (it != kernel_ids_.end()) return it->second;
  KernelNames names;
  const std::string* mangled = facts_.kernel(kernel);
  if (mangled == nullptr) {
    names.demangled = names.short_name = strings_.id(analysis::kUnknownKernel);
    names.mangled = 0;
  } else {
    const std::string demangled = analysis::demangle(*mangled);
    names.demangled = strings_.id(demangled);
    names.short_name = strings_.id(short_kernel_name(demangled));
    names.mangled = strings_.id(*mangled);
  }
  return kernel_ids_.emplace(kernel, names).first->second;
}

template <typename F>
void FileRows::guarded(F&& write) {
  if (!sqlite_error_.empty()) return;
  try {
    write();
  } catch (const SqliteError& e) {
    sqlite_error_ = e.what();
  }
}

void FileRows::on_api(const ApiRecord& r) {
  guarded([&] { write_api(r); });
}

void FileRows::on_gpu(const GpuRecord& r) {
  guarded([&] { write_gpu(r); });
}

void FileRows::write_api(const ApiRecord& r) {
  const ApiInfo* api = api_info(r.api);
  if (api == nullptr) return;  // the reader skips unknown APIs; be safe anyway
  seen(r.start_ns, r.end_ns);
  BatchInsert& b = in_.runtime;
  b.set(1, i64(r.start_ns));
  b.set(2, i64(std::max(r.end_ns, r.start_ns)));
  b.set(3, driver_api(api->symbol) ? kCudaDriver : kCudaRuntime);
  b.set(4, global_tid(global_pid_, r.tid));
  set_optional(b, 5, r.correlation);
  if (!is_pushed_id(r.correlation)) call_ids_.add(r.correlation);
  b.set(6, api_name(r.api, api->display));
  b.set(7, r.result);
  b.end_row();
  ++in_.rows;
  // Most launches have no dynamic shared memory: only those that do are
  // kept, to be split out of the kernel's total after the load.
  if ((api->fields & kFieldLaunch) && r.shared_mem != 0 && r.correlation != 0) {
    Statement& l = in_.launch_shared;
    l.bind(1, global_pid_);
    l.bind(2, i64(r.correlation));
    l.bind(3, r.shared_mem);
    l.bind(4, i64(r.start_ns));
    l.run();
  }
}

void FileRows::on_range(const RangeEvent& event) {
  if (event.op != RangeOp::kNameThread && event.op != RangeOp::kNameCategory)
    seen(event.time_ns, event.time_ns);
  ranges_.add(event);
}

void FileRows::on_external_correlation(uint64_t correlation, uint64_t external_id) {
  ++info_.gpu.external_correlations;
  external_ids_.add(correlation);
  small_pushed_ids_ = small_pushed_ids_ || !is_pushed_id(external_id);
  guarded([&] {
    Statement& s = in_.external;
    s.bind(1, global_pid_);
    s.bind(2, i64(correlation));
    s.bind(3, i64(external_id));
    s.run();
  });
}

// start, end, deviceId, streamId, correlationId, globalPid: the first six
// columns of every GPU table's insert.
void FileRows::gpu_common(BatchInsert& b, const GpuRecord& r) {
  b.set(1, i64(r.start_ns));
  b.set(2, i64(std::max(r.end_ns, r.start_ns)));
  b.set(3, r.device);
  b.set(4, r.stream);
  set_optional(b, 5, r.correlation);
  b.set(6, global_pid_);
}

void FileRows::write_gpu(const GpuRecord& r) {
  // No timestamp: counted, never shown as zero-length work at time 0
  // (docs/architecture.md §3.2).
  if (facts_.untimed(r.start_ns, r.end_ns)) return;
  seen(r.start_ns, r.end_ns);
  ++info_.gpu.records;
  info_.gpu.count(r.kind);
  switch (r.kind) {
    case GpuKind::kKernel: {
      BatchInsert& b = in_.kernel;
      gpu_common(b, r);
      const KernelNames& names = kernel_names(r.kernel);
      b.set(7, names.demangled);
      b.set(8, names.short_name);
      set_optional(b, 9, static_cast<uint64_t>(names.mangled));
      b.set(10, r.registers);
      b.set(11, r.grid.x);
      b.set(12, r.grid.y);
      b.set(13, r.grid.z);
      b.set(14, r.block.x);
      b.set(15, r.block.y);
      b.set(16, r.block.z);
      b.set(17, r.shared_mem);  // static + dynamic until the launch's part is split out
      b.set(18, 0);
      set_optional(b, 19, r.graph_node);
      set_optional(b, 20, r.graph);
      b.end_row();
      break;
    }
    case GpuKind::kMemcpy: {
      BatchInsert& b = in_.memcpy;
      gpu_common(b, r);
      b.set(7, i64(r.bytes));
      b.set(8, r.copy_kind);
      b.set(9, nsys_memory_kind(r.src_kind));
      b.set(10, nsys_memory_kind(r.dst_kind));
      // Only peer copies (CUPTI's MEMCPY2 records) name both devices.
      constexpr uint8_t kPeerToPeer = 10;
      if (r.copy_kind == kPeerToPeer) {
        b.set(11, r.device);
        b.set(12, r.peer_device);
      } else {
        b.set_null(11);
        b.set_null(12);
      }
      set_optional(b, 13, r.graph_node);
      b.end_row();
      break;
    }
    case GpuKind::kMemset: {
      BatchInsert& b = in_.memset;
      gpu_common(b, r);
      b.set(7, r.detail);
      b.set(8, i64(r.bytes));
      set_optional(b, 9, r.graph_node);
      b.set(10, nsys_memory_kind(r.dst_kind));
      b.end_row();
      break;
    }
    case GpuKind::kSync: {
      BatchInsert& b = in_.sync;
      gpu_common(b, r);
      b.set(7, r.detail);
      b.end_row();
      break;
    }
  }
  ++in_.rows;
}

int64_t FileRows::row_name(uint32_t name, uint32_t domain) {
  const uint64_t key = static_cast<uint64_t>(domain) << 32 | name;
  if (auto it = row_names_.find(key); it != row_names_.end()) return it->second;
  const std::string* message = text(pb::StringEntry::NVTX, name);
  const std::string* domain_name = text(pb::StringEntry::DOMAIN, domain);
  const int64_t id = strings_.id(analysis::range_row_name(message, domain_name));
  // A name not read yet may come later in the file: not kept for the others.
  if ((name == 0 || message) && (domain == 0 || domain_name)) row_names_.emplace(key, id);
  return id;
}

void FileRows::write_range(const analysis::Range& r, uint64_t opened) {
  if (r.domain != 0) {
    // Ranges come as they close: the first opened is the domain's first use.
    auto [it, added] = domains_.try_emplace(r.domain, FirstUse{opened, r.start_ns, r.tid});
    if (!added && opened < it->second.opened) it->second = FirstUse{opened, r.start_ns, r.tid};
  }
  const std::string* message = text(pb::StringEntry::NVTX, r.name);
  const int64_t event_id = first_event_id_ + static_cast<int64_t>(opened);
  if ((r.name != 0 && message == nullptr) ||
      (r.domain != 0 && text(pb::StringEntry::DOMAIN, r.domain) == nullptr))
    late_names_.push_back(LateName{event_id, r.name, r.domain});
  BatchInsert& s = in_.nvtx;
  s.set(1, event_id);
  s.set(2, i64(r.start_ns));
  int64_t type = kNvtxPushPopRange;
  if (r.kind == analysis::RangeKind::kStartEnd) type = kNvtxStartEndRange;
  if (r.kind == analysis::RangeKind::kMark) {
    type = kNvtxMark;
    s.set_null(3);
  } else {
    s.set(3, i64(r.end_ns));
  }
  s.set(4, type);
  if (message != nullptr)
    s.set(5, std::string_view(*message));  // in facts_: on_string flushes before changing it
  else
    s.set_null(5);
  s.set(6, global_tid(global_pid_, r.tid));
  if (r.kind == analysis::RangeKind::kStartEnd)
    s.set(7, global_tid(global_pid_, r.end_tid));
  else
    s.set_null(7);
  s.set(8, r.domain);
  s.end_row();

  BatchInsert& g = in_.gprof_nvtx;
  g.set(1, event_id);
  g.set(2, row_name(r.name, r.domain));
  // The file keeps torch's sequence_nr + 1 (0: none).
  if (r.seq == 0)
    g.set_null(3);
  else
    g.set(3, i64(r.seq - 1));
  set_optional(g, 4, r.op_id);
  g.set(5, r.open_at_exit ? 1 : 0);
  g.end_row();
  in_.rows += 2;
}

void FileRows::name_late_ranges() {
  if (late_names_.empty()) return;
  in_.flush();
  for (const LateName& late : late_names_) {
    if (const std::string* message = text(pb::StringEntry::NVTX, late.name)) {
      in_.nvtx_text.bind(1, std::string_view(*message));
      in_.nvtx_text.bind(2, late.event_id);
      in_.nvtx_text.run();
    }
    in_.nvtx_row_name.bind(1, row_name(late.name, late.domain));
    in_.nvtx_row_name.bind(2, late.event_id);
    in_.nvtx_row_name.run();
  }
  late_names_.clear();
}

void FileRows::finish() {
  // Open ranges end when the process did (as report and trace close them).
  uint64_t last = info_.last_ns;
  if (info_.footer) last = std::max<uint64_t>(last, info_.footer->end_clock_ns());
  ranges_.finish(last, info_.ranges);
  next_event_id_ = first_event_id_ + static_cast<int64_t>(ranges_.opened());
  name_late_ranges();
  // One DomainCreate row per domain, at its first use (the file does not
  // record nvtxDomainCreate itself), so that domainId resolves to a name.
  for (const auto& [domain, first] : domains_) {
    const std::string* name = text(pb::StringEntry::DOMAIN, domain);
    BatchInsert& s = in_.nvtx;
    s.set(1, next_event_id_++);
    s.set(2, i64(first.start_ns));
    s.set_null(3);
    s.set(4, kNvtxDomainCreate);
    if (name != nullptr)
      s.set(5, std::string_view(*name));
    else
      s.set_null(5);
    s.set(6, global_tid(global_pid_, first.tid));
    s.set_null(7);
    s.set(8, domain);
    s.end_row();
    ++in_.rows;
  }
  // Thread names: nvtxNameOsThread's, and the process's name for its main
  // thread when the program gave it none (nsys names it so too).
  std::map<uint32_t, std::string> names;
  for (const auto& [tid, name] : ranges_.thread_names()) {
    const std::string* t = text(pb::StringEntry::NVTX, name);
    if (t == nullptr) t = text(pb::StringEntry::THREAD, name);
    if (t != nullptr) names[tid] = *t;
  }
  info_.thread_names = names;
  if (info_.header && info_.header->pid() != 0)
    names.emplace(info_.header->pid(), trace::program_name(*info_.header));
  for (const auto& [tid, name] : names) {
    Statement& s = in_.thread_name;
    s.bind(1, strings_.id(name));
    s.bind(2, global_tid(global_pid_, tid));
    s.run();
  }
  in_.flush();  // before the strings the NVTX rows point into go away
}

}  // namespace gprof::exporter
