#include "tools/analysis/aggregate/throughput.h"

#include <utility>

namespace gprof::analysis {

ThroughputVisitor::ThroughputVisitor(std::vector<std::string> step_patterns, const CallScope* scope)
    : steps_(step_patterns.empty() ? default_step_patterns() : std::move(step_patterns)),
      scope_(scope) {}

void ThroughputVisitor::on_file_begin(uint32_t /*file*/, const std::string& /*path*/) {
  pid_ = 0;
  syncs_.clear();
  work_.clear();
}

void ThroughputVisitor::on_header(uint32_t /*file*/, const pb::FileHeader& header) {
  pid_ = header.pid();
}

void ThroughputVisitor::on_api(const ApiCall& call) {
  if (call.info.category == ApiCategory::kSync)
    syncs_.push_back({{call.record.start_ns, call.record.end_ns}, call.index});
}

void ThroughputVisitor::on_range(const RangeSpan& span) {
  if (span.range.kind != RangeKind::kMark)
    steps_.add(span.name, span.range.start_ns, span.range.end_ns);
}

void ThroughputVisitor::on_gpu(const GpuActivity& activity) {
  if (!activity.is_work()) return;
  const GpuRecord& r = *activity.record;
  work_[r.device].push_back(
      {{r.start_ns, r.end_ns}, activity.call ? activity.call->index : kNoCall});
}

void ThroughputVisitor::on_file_end(uint32_t file, const FileInfo& info) {
  FileThroughput out;
  out.file = file;
  out.pid = pid_;
  out.steps = steps_.finish();
  if (out.steps) {
    out.window_begin_ns = out.steps->first_start_ns;
    out.window_end_ns = out.steps->last_end_ns;
  } else {
    out.window_begin_ns = info.first_ns;
    out.window_end_ns = info.last_ns;
  }
  const bool filter = scope_ != nullptr && scope_->filters();
  const auto in_scope = [&](uint32_t index) {
    return !filter || (index != kNoCall && scope_->contains(index));
  };
  for (auto& [device, work] : work_) {
    std::vector<Interval> intervals;
    for (const auto& [interval, index] : work)
      if (in_scope(index)) intervals.push_back(interval);
    if (filter && intervals.empty()) continue;
    DeviceBusy busy{device, covered_length(intervals, out.window_begin_ns, out.window_end_ns)};
    for (const Interval& i : intervals) {
      if (busy.last_ns == 0 || i.first < busy.first_ns) busy.first_ns = i.first;
      busy.last_ns = std::max(busy.last_ns, i.second);
    }
    out.devices.push_back(busy);
  }
  std::vector<Interval> syncs;
  for (const auto& [interval, index] : syncs_)
    if (in_scope(index)) syncs.push_back(interval);
  out.sync_ns = clipped_sum(syncs, out.window_begin_ns, out.window_end_ns);
  for (const auto& [start, end] : syncs)
    if (start < out.window_end_ns && end > out.window_begin_ns) ++out.sync_calls;
  files_.push_back(std::move(out));
  syncs_.clear();
  work_.clear();
}

}  // namespace gprof::analysis
