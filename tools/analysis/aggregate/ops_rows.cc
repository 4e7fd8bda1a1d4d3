#include "tools/analysis/aggregate/ops_rows.h"

#include <algorithm>

#include "tools/analysis/model/glob.h"
#include "tools/analysis/read/demangle.h"
#include "tools/analysis/read/gpu_names.h"

namespace gprof::analysis {

OpsRowsVisitor::OpsRowsVisitor(KeyAverages& out, OpsOptions options)
    : out_(out), options_(std::move(options)) {}

void OpsRowsVisitor::on_file_begin(uint32_t /*file*/, const std::string& /*path*/) {
  nodes_.clear();
  work_.clear();
  launches_.clear();
  work_totals_.clear();
  launch_counts_.clear();
  work_order_.clear();
  launch_order_.clear();
  windows_ = RangeWindows{};
  results_.clear();
  labels_.clear();
  gpu_names_.clear();
  kernel_names_.clear();
  range_names_.clear();
  process_ = strings_.id("-");  // until the header says
}

void OpsRowsVisitor::on_header(uint32_t /*file*/, const pb::FileHeader& header) {
  process_ =
      strings_.id(options_.group_by == GroupBy::kRank ? rank_text(header.pid(), header.rank())
                                                      : process_text(header.pid(), header.rank()));
}

uint32_t OpsRowsVisitor::api_name(const ApiInfo& info) {
  const auto api = static_cast<uint16_t>(info.id);
  auto it = api_names_.find(api);
  if (it == api_names_.end()) it = api_names_.emplace(api, strings_.id(info.display)).first;
  return it->second;
}

uint32_t OpsRowsVisitor::interned(std::unordered_map<const std::string*, uint32_t>& cache,
                                  const std::string* text, bool demangled) {
  auto it = cache.find(text);
  if (it != cache.end()) return it->second;
  std::string name;
  if (text == nullptr)
    name = kUnknownKernel;
  else
    name = demangled ? demangle(*text) : *text;
  return cache.emplace(text, strings_.id(name)).first->second;
}

void OpsRowsVisitor::on_api(const ApiCall& call) {
  const ApiRecord& r = call.record;
  const bool launch = call.info.fields & kFieldLaunch;
  uint32_t group = Interner::kEmpty;
  if (options_.group_by == GroupBy::kLaunchConfig && launch)
    group = strings_.id(launch_config_text(r.grid, r.block, r.shared_mem));
  else if (by_file())
    group = process_;
  CpuNode n;
  n.start_ns = r.start_ns;
  n.end_ns = r.end_ns;
  n.thread = r.tid;
  n.id = call.index;
  n.label = labels_.label(RowLabel{RowKind::kApi, api_name(call.info), group});
  if (call.index == nodes_.size()) {
    nodes_.push_back(n);  // calls come numbered in order
  } else {
    if (nodes_.size() <= call.index) nodes_.resize(size_t{call.index} + 1);
    nodes_[call.index] = n;
  }
  ledger_.add(r, call.index);
  if (launch) {
    const RowLabel kernel{RowKind::kGpu, interned(kernel_names_, call.kernel, true), group,
                          GpuKind::kKernel};
    const uint32_t label = labels_.label(kernel);
    if (per_record()) {
      launches_.push_back(Launch{call.index, label});
    } else {
      if (launch_counts_.size() <= label) launch_counts_.resize(size_t{label} + 1, 0);
      if (launch_counts_[label]++ == 0) launch_order_.push_back(label);
    }
  }
}

void OpsRowsVisitor::on_range(const RangeSpan& span) {
  const Range& r = span.range;
  if (r.kind == RangeKind::kMark) return;  // instants: no time to attribute
  const bool detached = r.kind == RangeKind::kStartEnd;
  const bool named = glob_match_any(options_.ranges, span.name);
  CpuNode n;
  n.start_ns = r.start_ns;
  n.end_ns = r.end_ns;
  n.thread = r.tid;
  n.id = static_cast<uint32_t>(nodes_.size());  // after every call of the file
  n.flags = static_cast<uint8_t>(kNodeRange | (detached ? kNodeDetached : 0) |
                                 (named ? kNodeScopeRoot : 0));
  const uint32_t group = range_group(options_.group_by, by_file() ? process_ : Interner::kEmpty,
                                     r.seq, r.op_id, span.input_shapes, strings_);
  n.label =
      labels_.label(RowLabel{RowKind::kRange, interned(range_names_, &span.name, false), group});
  nodes_.push_back(n);
  if (detached && named) windows_.add(r.start_ns, r.end_ns);
}

uint32_t OpsRowsVisitor::gpu_group(const GpuRecord& r) {
  switch (options_.group_by) {
    case GroupBy::kLaunchConfig:
      if (r.kind != GpuKind::kKernel) return Interner::kEmpty;
      return strings_.id(launch_config_text(r.grid, r.block, r.shared_mem));
    case GroupBy::kStream:
      return strings_.id(std::to_string(r.stream));
    case GroupBy::kDevice:
      return strings_.id(std::to_string(r.device));
    case GroupBy::kProcess:
    case GroupBy::kRank:
      return process_;
    case GroupBy::kName:
    case GroupBy::kInputShape:  // ranges only
    case GroupBy::kSeq:
    case GroupBy::kThread:  // once thread names are known (on_file_end)
      break;
  }
  return Interner::kEmpty;
}

void OpsRowsVisitor::on_gpu(const GpuActivity& activity) {
  if (!activity.is_work()) return;
  const GpuRecord& r = *activity.record;
  const uint64_t duration = activity.duration_ns();
  const uint32_t group = gpu_group(r);
  const uint32_t call = activity.call != nullptr && activity.call->index < nodes_.size()
                            ? activity.call->index
                            : kNoCall;
  if (call != kNoCall) {
    CpuNode& issuer = nodes_[call];
    issuer.own_device_ns += duration;
    // A call's stream or device is that of the first work it issued.
    const bool by_work =
        options_.group_by == GroupBy::kStream || options_.group_by == GroupBy::kDevice;
    if (by_work && labels_.get(issuer.label).group == Interner::kEmpty)
      issuer.label = labels_.regroup(issuer.label, group);
  }
  const uint32_t label = labels_.label(
      RowLabel{RowKind::kGpu, interned(gpu_names_, activity.name, false), group, r.kind});
  if (per_record()) {
    work_.push_back(GpuWork{duration, call, label});
    return;
  }
  if (work_totals_.size() <= label) work_totals_.resize(size_t{label} + 1);
  Totals& totals = work_totals_[label];
  if (totals.count++ == 0) work_order_.push_back(label);
  totals.duration_ns += duration;
}

void OpsRowsVisitor::regroup_by_thread(const FileInfo& info) {
  std::unordered_map<uint32_t, uint32_t> groups;  // tid -> thread_text id
  const auto group_of = [&](uint32_t tid) {
    auto it = groups.find(tid);
    if (it != groups.end()) return it->second;
    auto named = info.thread_names.find(tid);
    const std::string* name = named == info.thread_names.end() ? nullptr : &named->second;
    return groups.emplace(tid, strings_.id(thread_text(tid, name))).first->second;
  };
  for (GpuWork& w : work_)
    if (w.call != kNoCall) w.label = labels_.regroup(w.label, group_of(nodes_[w.call].thread));
  for (Launch& l : launches_) l.label = labels_.regroup(l.label, group_of(nodes_[l.call].thread));
  for (CpuNode& n : nodes_) n.label = labels_.regroup(n.label, group_of(n.thread));
}

void OpsRowsVisitor::mark_windows() {
  if (windows_.empty()) return;
  windows_.merge();
  for (CpuNode& n : nodes_)
    if (windows_.contains(n.start_ns, n.end_ns)) n.flags |= kNodeInWindow;
}

bool OpsRowsVisitor::call_in_scope(uint32_t call) const {
  if (!filters()) return true;
  return call != kNoCall && call < results_.size() && (results_[call] & kResultInRange);
}

bool OpsRowsVisitor::contains(uint32_t index) const {
  return call_in_scope(index);
}

void OpsRowsVisitor::add_gpu_rows(const FileInfo& info) {
  // Either way, rows are created in the order of their first record.
  for (const GpuWork& w : work_)
    if (call_in_scope(w.call)) out_.add_gpu_activity(labels_.key(w.label, out_), w.duration_ns);
  for (uint32_t label : work_order_) {
    const Totals& t = work_totals_[label];
    out_.add_gpu_activity(labels_.key(label, out_), t.duration_ns, t.count);
  }
  if (info.gpu.records != 0) return;
  // A CPU-only capture: kernel rows count launches.
  for (const Launch& l : launches_)
    if (call_in_scope(l.call)) out_.add_gpu_activity(labels_.key(l.label, out_), 0);
  for (uint32_t label : launch_order_)
    out_.add_gpu_activity(labels_.key(label, out_), 0, launch_counts_[label]);
}

void OpsRowsVisitor::on_file_end(uint32_t /*file*/, const FileInfo& info) {
  if (options_.group_by == GroupBy::kThread) regroup_by_thread(info);

  // Bytes each allocation and free moved, and the [memory] row each would go
  // to: worked out while nodes_ is still indexed by call.
  const std::vector<MemoryDelta> deltas = ledger_.resolve();
  std::vector<uint32_t> memory_labels;
  memory_labels.reserve(deltas.size());
  const uint32_t memory_name = strings_.id(kMemoryRow);
  for (const MemoryDelta& d : deltas) {
    CpuNode& n = nodes_[d.call];
    n.own_mem += d.bytes;  // a call allocates or frees in one space only
    if (d.space == MemorySpace::kHost) n.flags |= kNodeHostMemory;
    const bool by_call = options_.group_by == GroupBy::kThread || by_file();
    const uint32_t group = by_call ? labels_.get(n.label).group : Interner::kEmpty;
    memory_labels.push_back(labels_.label(RowLabel{RowKind::kMemory, memory_name, group}));
  }
  saw_memory_ = saw_memory_ || !deltas.empty();
  mark_windows();

  const CpuTreeRules rules{filters(), options_.top_level_only};
  results_ = aggregate_cpu_nodes(
      nodes_, rules, [this](const CpuNode& n) { return labels_.key(n.label, out_); }, out_);
  // nodes_ is sorted now; everything below goes by call index.
  add_gpu_rows(info);
  for (size_t i = 0; i < deltas.size(); ++i) {
    const MemoryDelta& d = deltas[i];
    if ((results_[d.call] & kResultUnderRange) || !call_in_scope(d.call)) continue;
    add_memory_event(out_.row(labels_.key(memory_labels[i], out_)), d.space == MemorySpace::kDevice,
                     d.bytes);
  }
  nodes_.clear();
  work_.clear();
  launches_.clear();
  work_totals_.clear();
  launch_counts_.clear();
  work_order_.clear();
  launch_order_.clear();
}

}  // namespace gprof::analysis
