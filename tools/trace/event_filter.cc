#include "tools/trace/event_filter.h"

#include <algorithm>

#include "tools/analysis/model/glob.h"

namespace gprof::trace {
namespace {

// The span of an event on the file's clock.
Interval span(const Item& e) {
  if (e.kind == EventKind::kAsyncEnd) return {e.start_ns - e.dur_ns, e.start_ns};
  return {e.start_ns, e.start_ns + e.dur_ns};
}

}  // namespace

void FileCut::add_range(const std::string& name, Interval span) {
  if (cut_.ranges.empty() || !analysis::glob_match_any(cut_.ranges, name)) return;
  scope_.push_back(span);
  merged_ = false;
}

// The scope's intervals merged, in time order.
void FileCut::merge() const {
  if (merged_) return;
  std::sort(scope_.begin(), scope_.end());
  std::vector<Interval> merged;
  for (const Interval& i : scope_) {
    if (!merged.empty() && i.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, i.second);
    else
      merged.push_back(i);
  }
  scope_ = std::move(merged);
  merged_ = true;
}

bool FileCut::in_window(Interval i) const {
  return !cut_.window || cut_.window->overlaps(static_cast<int64_t>(i.first) + to_relative_,
                                               static_cast<int64_t>(i.second) + to_relative_);
}

bool FileCut::in_scope(Interval what) const {
  if (cut_.ranges.empty()) return true;
  merge();
  // The last interval starting at or before `what`: merged intervals are
  // disjoint, so it is the only one that can hold it.
  auto it = std::upper_bound(scope_.begin(), scope_.end(), what.first,
                             [](uint64_t t, const Interval& i) { return t < i.first; });
  return it != scope_.begin() && what.second <= std::prev(it)->second;
}

bool FileCut::gpu_kept(const Item& gpu) const {
  const bool issuer_kept = cut_.ranges.empty() || (gpu.has_call && call_kept(call_span(gpu)));
  return issuer_kept && in_window(gpu_span(gpu));
}

bool FileCut::keep(const Item& e) const {
  if (!cut_.cuts()) return true;
  switch (e.kind) {
    case EventKind::kCall:
      if (!call_kept(call_span(e))) return false;
      return e.sub == 0 || gpu_kept(e);  // a flow start needs its GPU end
    case EventKind::kGpu:
      if (!gpu_kept(e)) return false;
      return e.sub == 0 || (e.has_call && call_kept(call_span(e)));
    case EventKind::kCounter:
      return !e.has_call || call_kept(call_span(e));
    default:
      return in_window(span(e)) && in_scope(span(e));
  }
}

}  // namespace gprof::trace
