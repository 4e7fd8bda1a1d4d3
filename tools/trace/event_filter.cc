#include "tools/trace/event_filter.h"

#include <algorithm>
#include <utility>

#include "tools/analysis/glob.h"

namespace gprof::trace {
namespace {

using Interval = std::pair<uint64_t, uint64_t>;  // [start, end] on the file's clock

// The span of an event on the file's clock.
Interval span(const Event& e) {
  if (e.kind == EventKind::kAsyncEnd) return {e.start_ns - e.dur_ns, e.start_ns};
  return {e.start_ns, e.start_ns + e.dur_ns};
}

// The intervals of the ranges --range names, merged, in time order.
std::vector<Interval> scope_of(const FileEvents& file, const std::vector<std::string>& patterns) {
  std::vector<Interval> intervals;
  for (const Event& e : file.events) {
    if (e.kind != EventKind::kRange && e.kind != EventKind::kAsyncBegin) continue;
    if (analysis::glob_match_any(patterns, file.strings->text(file.ranges[e.ref].name)))
      intervals.push_back(span(e));
  }
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> merged;
  for (const Interval& i : intervals) {
    if (!merged.empty() && i.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, i.second);
    else
      merged.push_back(i);
  }
  return merged;
}

bool inside(const std::vector<Interval>& scope, Interval what) {
  // The last interval starting at or before `what`: merged intervals are
  // disjoint, so it is the only one that can hold it.
  auto it = std::upper_bound(scope.begin(), scope.end(), what.first,
                             [](uint64_t t, const Interval& i) { return t < i.first; });
  return it != scope.begin() && what.second <= std::prev(it)->second;
}

}  // namespace

void cut_events(FileEvents& file, const EventCut& cut, int64_t to_relative) {
  if (!cut.cuts()) return;
  const std::vector<Interval> scope =
      cut.ranges.empty() ? std::vector<Interval>{} : scope_of(file, cut.ranges);
  const auto in_window = [&](Interval i) {
    return !cut.window || cut.window->overlaps(static_cast<int64_t>(i.first) + to_relative,
                                               static_cast<int64_t>(i.second) + to_relative);
  };
  const auto in_scope = [&](Interval i) { return cut.ranges.empty() || inside(scope, i); };
  // Calls and ranges first: GPU work and counters follow their calls.
  for (const Event& e : file.events) {
    const bool keep = in_window(span(e)) && in_scope(span(e));
    if (e.kind == EventKind::kCall) file.calls[e.ref].keep = keep;
    if (e.kind == EventKind::kRange || e.kind == EventKind::kAsyncBegin ||
        e.kind == EventKind::kMark)
      file.ranges[e.ref].keep = keep;
  }
  for (const Event& e : file.events) {
    if (e.kind != EventKind::kGpu) continue;
    GpuDetails& work = file.gpu[e.ref];
    const bool issuer_kept =
        cut.ranges.empty() || (work.call != kNoIndex && file.calls[work.call].keep);
    work.keep = issuer_kept && in_window(span(e));
  }
  std::erase_if(file.events, [&](const Event& e) {
    switch (e.kind) {
      case EventKind::kCall:
        return !file.calls[e.ref].keep;
      case EventKind::kGpu:
        return !file.gpu[e.ref].keep;
      case EventKind::kCounter: {
        const uint32_t call = file.counters[e.ref].call;
        return call != kNoIndex && !file.calls[call].keep;
      }
      default:
        return !file.ranges[e.ref].keep;
    }
  });
}

}  // namespace gprof::trace
