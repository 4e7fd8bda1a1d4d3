#include "tools/findings/stream/stream_scan.h"
#include "formats/correlation_ids.h"

#include <algorithm>
#include <deque>

#include "tools/analysis/read/demangle.h"
#include "tools/analysis/read/gpu_names.h"
#include "tools/analysis/read/range_names.h"

namespace gprof::findings::stream {
namespace {

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

}  // namespace

FileScan::FileScan(analysis::FileInfo& info, std::vector<std::string>& gpu_names, bool ranges,
                   const analysis::SortResources& sort)
    : calls(ranges ? sort.make<CallRecord, ByThreadStart>() : Sorted<CallRecord, ByThreadStart>(1)),
      calls_by_id(ranges ? Sorted<CallRecord, ByCorrelation>(1)
                         : sort.make<CallRecord, ByCorrelation>()),
      ranges_by_thread(sort.make<RangeRecord, RangeNesting>()),
      ranges_by_start(sort.make<RangeRecord, ByStart>()),
      gpu(sort.make<GpuScan, ByCorrelation>()),
      info_(info),
      facts_(info),
      gpu_names_(gpu_names),
      sort_(sort),
      externals_(sort.make<analysis::ExternalId, analysis::ByCuptiId>()),
      starts_(sort.make<StartEvent, ById>()),
      ends_(sort.make<EndEvent, ById>()),
      keep_ranges_(ranges) {}

void FileScan::on_header(const pb::FileHeader& header) {
  facts_.header(header);
  const bool windowed = analysis::has_capture_window(header);
  if (windowed != windowed_ && gpu_seq_ != 0) refuse("a header after GPU records");
  windowed_ = windowed;
}

void FileScan::on_devices(const google::protobuf::RepeatedPtrField<pb::Device>& devices) {
  facts_.devices(devices);
}

void FileScan::on_string(const pb::StringEntry& entry) {
  facts_.string(entry);
  if (entry.kind() != pb::StringEntry::KERNEL) return;
  if (auto it = unnamed_kernels_.find(entry.id()); it != unnamed_kernels_.end())
    gpu_names_[it->second] = analysis::demangle(entry.value());
}

// As TimelineBuilder::on_api takes a call.
void FileScan::on_api(const ApiRecord& r) {
  const ApiInfo* info = api_info(r.api);
  if (info == nullptr) return;
  seen(r.start_ns, r.end_ns);
  CallRecord c;
  c.call.start_ns = r.start_ns;
  c.call.end_ns = r.end_ns;
  c.call.stream = r.stream;
  c.call.bytes = r.bytes;
  c.call.tid = r.tid;
  c.call.api = r.api;
  c.call.category = info->category;
  c.call.copy_kind = r.copy_kind;
  c.call.async = info->category == ApiCategory::kLaunch || ends_with(info->display, "Async");
  c.correlation = ids_.call(r.correlation);
  if (c.correlation != 0) called_.set(c.correlation);
  c.index = calls_seen_++;
  if (keep_ranges_)
    calls.add(c);
  else
    calls_by_id.add(c);
  span_begin = std::min(span_begin, r.start_ns);
  span_end = std::max(span_end, r.end_ns);
  if (issues_work(info->category)) work_begin = std::min(work_begin, r.start_ns);
  if (info->category == ApiCategory::kLaunch) gaps_.launch(r.start_ns, c.correlation);
}

void FileScan::on_external_correlation(uint64_t correlation, uint64_t external_id) {
  ++info_.gpu.external_correlations;
  if (!is_pushed_id(external_id)) refuse("external ids pushed from 1 (a file of an older gprof)");
  // With a capture window, whether work was issued outside it is told by
  // its pairing (WindowedGpu), in the join.
  if (why_.empty()) externals_.add(analysis::ExternalId{ids_.call(correlation), external_id});
}

void FileScan::on_cupti(const pb::CuptiStatus& status) {
  facts_.cupti(status);
  if (why_.empty() && !gaps_.status(status)) why_ = gaps_.why();
}

void FileScan::finish_gaps() {
  if (info_.cupti && info_.cupti->gaps_size() > 0) info_.gaps = gaps_.counts();
}

uint32_t FileScan::name_key(uint32_t name, uint32_t domain) {
  const auto [it, added] = name_keys_.try_emplace(static_cast<uint64_t>(domain) << 32 | name,
                                                  static_cast<uint32_t>(keys_.size()));
  if (added) keys_.emplace_back(name, domain);
  return it->second;
}

void FileScan::emit(const RangeRecord& range) {
  if (!keep_ranges_) return;
  ranges_by_thread.add(range);
  ranges_by_start.add(range);
}

// As RangePairing::add, less what only report needs.
void FileScan::on_range(const RangeEvent& e) {
  if (e.op != RangeOp::kNameThread && e.op != RangeOp::kNameCategory) seen(e.time_ns, e.time_ns);
  switch (e.op) {
    case RangeOp::kPush:
      stacks_[{e.tid, e.domain}].push_back(
          RangeRecord{e.time_ns, 0, range_seq_++, e.tid, name_key(e.name, e.domain)});
      break;
    case RangeOp::kPop: {
      auto it = stacks_.find({e.tid, e.domain});
      if (it == stacks_.end() || it->second.empty()) {
        ++info_.ranges.unbalanced_pops;
        break;
      }
      RangeRecord range = it->second.back();
      it->second.pop_back();
      range.end_ns = std::max(e.time_ns, range.start_ns);
      ++info_.ranges.push_pop;
      emit(range);
      break;
    }
    case RangeOp::kStart:
      starts_.add(
          StartEvent{e.range_id, e.time_ns, range_seq_++, e.tid, name_key(e.name, e.domain)});
      break;
    case RangeOp::kEnd:
      ends_.add(EndEvent{e.range_id, e.time_ns, e.tid});
      break;
    case RangeOp::kMark:
      ++info_.ranges.marks;
      break;
    case RangeOp::kNameThread:
      thread_names_[static_cast<uint32_t>(e.range_id)] = e.name;
      break;
    case RangeOp::kNameCategory:
      break;
  }
}

// As FileAdapter::on_gpu and TimelineBuilder::on_gpu.
void FileScan::on_gpu(const GpuRecord& r) {
  if (facts_.untimed(r.start_ns, r.end_ns)) return;
  seen(r.start_ns, r.end_ns);
  if (!windowed_) {
    ++info_.gpu.records;
    info_.gpu.count(r.kind);
    gaps_.gpu(r.start_ns);
  }
  GpuScan row;
  row.correlation = ids_.other(r.correlation);
  row.seq = gpu_seq_++;
  row.is_work = r.kind != GpuKind::kSync;
  Work& w = row.work;
  w.start_ns = r.start_ns;
  w.end_ns = r.end_ns;
  w.bytes = r.bytes;
  w.device = r.device;
  w.stream = r.stream;
  w.kind = r.kind;
  w.copy_kind = r.copy_kind;
  w.src_kind = r.src_kind;
  w.dst_kind = r.dst_kind;
  if (row.is_work) {
    const std::string* kernel = nullptr;
    if (r.kind == GpuKind::kKernel) kernel = facts_.kernel(r.kernel);
    const bool unnamed = r.kind == GpuKind::kKernel && r.kernel != 0 && kernel == nullptr;
    const uint64_t key = analysis::gpu_row_name_key(r, kernel != nullptr || unnamed);
    auto known = gpu_row_names_.find(key);
    if (known == gpu_row_names_.end() && unnamed) {
      // An entry of its own, named if the kernel's name comes later.
      const uint32_t id = static_cast<uint32_t>(gpu_names_.size());
      gpu_names_.push_back(analysis::gpu_row_name(r, nullptr));
      unnamed_kernels_.emplace(r.kernel, id);
      known = gpu_row_names_.emplace(key, id).first;
    } else if (known == gpu_row_names_.end()) {
      const std::string name = analysis::gpu_row_name(r, kernel);
      const auto [id, added] =
          gpu_name_ids_.try_emplace(name, static_cast<uint32_t>(gpu_names_.size()));
      if (added) gpu_names_.push_back(name);
      known = gpu_row_names_.emplace(key, id->second).first;
    }
    w.name = known->second;
    if (!windowed_) {
      span_begin = std::min(span_begin, r.start_ns);
      span_end = std::max(span_end, r.end_ns);
      work_begin = std::min(work_begin, r.start_ns);
    }
  }
  gpu.add(row);
}

bool WindowedGpu::unpaired(const GpuScan& g) {
  if (!scan_.windowed()) return true;
  if (window_.outside(g.work.start_ns)) {
    ++info_.gpu.outside_window;
    return false;
  }
  count(g);
  return true;
}

void WindowedGpu::count(const GpuScan& g) {
  ++info_.gpu.records;
  info_.gpu.count(g.work.kind);
  scan_.counted_gpu(g.work.start_ns);
  if (!g.is_work) return;
  scan_.span_begin = std::min(scan_.span_begin, g.work.start_ns);
  scan_.span_end = std::max(scan_.span_end, g.work.end_ns);
  scan_.work_begin = std::min(scan_.work_begin, g.work.start_ns);
}

// As RangePairing::pair_start_end, over the sorted events.
void FileScan::pair_start_end(uint64_t last_ns) {
  auto starts = starts_.sorted();
  auto ends = ends_.sorted();
  StartEvent s{};
  EndEvent e{};
  bool has_s = starts.next(s), has_e = ends.next(e);
  std::deque<StartEvent> open;
  const auto close = [&](const StartEvent& start, uint64_t end_ns, uint32_t end_tid, bool at_exit) {
    ++info_.ranges.start_end;
    if (at_exit) ++info_.ranges.open_at_exit;
    if (!at_exit && end_tid != start.tid) ++info_.ranges.cross_thread;
    emit(RangeRecord{start.time_ns, std::max(end_ns, start.time_ns), start.seq, start.tid,
                     start.name});
  };
  while (has_s || has_e) {
    const uint64_t id = has_s && (!has_e || s.id <= e.id) ? s.id : e.id;
    while ((has_s && s.id == id) || (has_e && e.id == id)) {
      const bool take_start =
          has_s && s.id == id && (!has_e || e.id != id || s.time_ns <= e.time_ns);
      if (take_start) {
        open.push_back(s);
        has_s = starts.next(s);
        continue;
      }
      const EndEvent end = e;
      has_e = ends.next(e);
      if (open.empty()) {
        ++info_.ranges.ends_without_start;
        continue;
      }
      close(open.front(), end.time_ns, end.tid, false);
      open.pop_front();
    }
    for (const StartEvent& start : open) close(start, last_ns, start.tid, true);
    open.clear();
  }
}

bool FileScan::finish() {
  if (why_.empty() && ids_.ambiguous())
    refuse("correlation ids too far apart to unwrap as they come");
  // With a capture window, GPU records count in the gaps, closed now, once
  // paired (WindowedGpu).
  if (why_.empty() && info_.cupti && info_.cupti->gaps_size() > 0 && !gaps_.finish(*info_.cupti))
    why_ = gaps_.why();
  if (!why_.empty()) return false;
  // Open ranges end when the process did (FileAdapter::finish_ranges).
  uint64_t last = info_.last_ns;
  if (info_.footer) last = std::max<uint64_t>(last, info_.footer->end_clock_ns());
  for (auto& [thread, stack] : stacks_)
    for (RangeRecord& range : stack) {
      range.end_ns = std::max(last, range.start_ns);
      ++info_.ranges.push_pop;
      ++info_.ranges.open_at_exit;
      emit(range);
    }
  stacks_.clear();
  pair_start_end(last);
  starts_ = Sorted<StartEvent, ById>(1);
  ends_ = Sorted<EndEvent, ById>(1);
  for (const auto& [tid, name] : thread_names_) {
    const std::string* text = string_of(pb::StringEntry::NVTX, name);
    if (text == nullptr) text = string_of(pb::StringEntry::THREAD, name);
    if (text != nullptr) info_.thread_names[tid] = *text;
  }
  range_names_.reserve(keys_.size());
  for (const auto& [name, domain] : keys_)
    range_names_.push_back(analysis::range_row_name(string_of(pb::StringEntry::NVTX, name),
                                                    string_of(pb::StringEntry::DOMAIN, domain)));
  return true;
}

}  // namespace gprof::findings::stream
