#include "tools/analysis/aggregate/covered_length_stream.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gprof::analysis {
namespace {

bool starts_before(const TimeInterval& a, const TimeInterval& b) {
  return a.start_ns < b.start_ns;
}

// Sorts by start. Late intervals come as a few sorted runs (a CUPTI buffer's
// records are in order; the buffers are not): those are merged pairwise,
// log(runs) passes instead of a sort's log(n). Many runs: a plain sort.
// The order of intervals with the same start is left open, as std::sort
// leaves it: a union does not depend on it.
void sort_by_start(std::vector<TimeInterval>& v, std::vector<TimeInterval>& scratch) {
  constexpr size_t kMaxRuns = 64;
  std::vector<size_t> bounds{0};
  for (size_t i = 1; i < v.size(); ++i) {
    if (!starts_before(v[i], v[i - 1])) continue;
    if (bounds.size() == kMaxRuns) {
      std::sort(v.begin(), v.end(), starts_before);
      return;
    }
    bounds.push_back(i);
  }
  bounds.push_back(v.size());
  std::vector<size_t> merged;
  while (bounds.size() > 2) {
    scratch.resize(v.size());
    merged.assign(1, 0);
    for (size_t r = 0; r + 1 < bounds.size(); r += 2) {
      const auto at = [&](size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(bounds[i]); };
      const auto out = scratch.begin() + static_cast<std::ptrdiff_t>(bounds[r]);
      if (r + 2 < bounds.size()) {
        std::merge(at(r), at(r + 1), at(r + 1), at(r + 2), out, starts_before);
        merged.push_back(bounds[r + 2]);
      } else {
        std::copy(at(r), at(r + 1), out);
        merged.push_back(bounds[r + 1]);
      }
    }
    v.swap(scratch);
    bounds.swap(merged);
  }
}

}  // namespace

CoveredLengthStream::CoveredLengthStream(const SpillLimits& limits)
    : limits_(limits),
      memory_cap_(std::max<size_t>(limits.memory_intervals, 2)),
      behind_cap_(std::max<size_t>(limits.chunk_intervals, 1)),
      next_merge_(behind_cap_),
      main_(limits) {
  recent_.reserve(2 * memory_cap_);  // the most merge_behind() leaves
}

bool CoveredLengthStream::insert_near_end(uint64_t start_ns, uint64_t end_ns) {
  constexpr size_t kReach = 8;  // intervals looked back over: a few short moves at most
  const size_t stop = recent_.size() > kReach ? recent_.size() - kReach : 0;
  if (stop > 0 && recent_[stop - 1].start_ns > start_ns) return false;  // further back: one look
  size_t at = recent_.size() - 1;  // recent_[at] starts after start_ns
  while (at > stop && recent_[at - 1].start_ns > start_ns) --at;
  if (at > 0 && recent_[at - 1].start_ns > start_ns) return false;
  size_t joined = at;
  if (at > 0 && start_ns <= recent_[at - 1].end_ns) {
    joined = at - 1;
    recent_[joined].end_ns = std::max(recent_[joined].end_ns, end_ns);
  } else {
    recent_.insert(recent_.begin() + static_cast<std::ptrdiff_t>(at), {start_ns, end_ns});
  }
  // It may reach the ones after it.
  size_t next = joined + 1;
  while (next < recent_.size() && recent_[next].start_ns <= recent_[joined].end_ns)
    recent_[joined].end_ns = std::max(recent_[joined].end_ns, recent_[next++].end_ns);
  recent_.erase(recent_.begin() + static_cast<std::ptrdiff_t>(joined + 1),
                recent_.begin() + static_cast<std::ptrdiff_t>(next));
  if (recent_.size() >= memory_cap_) spill_older_half();
  return true;
}

// A merge moves every recent interval that ends at or after the earliest
// late start. With the buffers of several streams delivered late (a GPU far
// behind its calls), that was most of the recent union for each 4096 late
// ones: 14% of a report's instructions (a 5M-record file, --gpu-lag 30).
// Late ones now wait until they are at least as many as they would move,
// so that a merge moves at most about one recent interval per late one
// (waiting only until they were a quarter as many left 6%).
void CoveredLengthStream::merge_behind_when_worth_it() {
  const auto from =
      std::partition_point(recent_.begin(), recent_.end(),
                           [&](const TimeInterval& i) { return i.end_ns < behind_first_; });
  const auto moved = static_cast<size_t>(recent_.end() - from);
  if (behind_.size() >= memory_cap_ || behind_.size() >= moved)
    merge_behind();
  else
    next_merge_ = std::min(behind_.size() + behind_cap_, memory_cap_);
}

void CoveredLengthStream::merge_behind() {
  next_merge_ = behind_cap_;
  behind_first_ = UINT64_MAX;
  if (behind_.empty()) return;
  sort_by_start(behind_, scratch_);
  // Only the recent intervals that end at or after the first late start can
  // meet a late one: with a little disorder, a short tail is merged.
  const uint64_t first = behind_.front().start_ns;
  const auto from = std::partition_point(recent_.begin(), recent_.end(),
                                         [&](const TimeInterval& i) { return i.end_ns < first; });
  scratch_.assign(from, recent_.end());
  recent_.erase(from, recent_.end());
  const auto put = [&](const TimeInterval& i) {
    if (!recent_.empty() && i.start_ns <= recent_.back().end_ns)
      recent_.back().end_ns = std::max(recent_.back().end_ns, i.end_ns);
    else
      recent_.push_back(i);
  };
  size_t a = 0;
  size_t b = 0;
  while (a < scratch_.size() || b < behind_.size()) {
    if (b == behind_.size() || (a < scratch_.size() && scratch_[a].start_ns <= behind_[b].start_ns))
      put(scratch_[a++]);
    else
      put(behind_[b++]);
  }
  behind_.clear();
  while (recent_.size() >= memory_cap_) spill_older_half();
}

void CoveredLengthStream::spill_older_half() {
  if (!behind_.empty()) {
    merge_behind();  // so that late arrivals join their neighbours before these leave
    if (recent_.size() < memory_cap_) return;
  }
  const auto half = recent_.begin() + static_cast<std::ptrdiff_t>(recent_.size() / 2);
  const uint64_t main_end = main_.end_ns();
  // Sorted by start: the ones that start before the main run's end come first.
  const auto late = std::partition_point(
      recent_.begin(), half, [&](const TimeInterval& i) { return i.start_ns < main_end; });
  if (late != recent_.begin()) add_late_run({recent_.begin(), late});
  if (half != late) main_.append({late, half});
  recent_.erase(recent_.begin(), half);
}

void CoveredLengthStream::add_late_run(std::span<const TimeInterval> intervals) {
  auto file = std::make_unique<TempFile>("GPU busy time");
  write_intervals(*file, intervals);
  if (levels_.empty()) levels_.emplace_back();
  levels_[0].push_back(LateRun{std::move(file), intervals.size()});
  const size_t fan_in = std::max<size_t>(limits_.runs_per_level, 2);
  for (size_t level = 0; level < levels_.size() && levels_[level].size() >= fan_in; ++level) {
    std::vector<IntervalReader> sources;
    sources.reserve(levels_[level].size());
    for (const LateRun& run : levels_[level])
      sources.emplace_back(*run.file, 0, run.count, limits_.block_intervals);
    auto merged = std::make_unique<TempFile>("GPU busy time");
    IntervalWriter writer(*merged, limits_.block_intervals);
    merge_union(sources, [&](const TimeInterval& i) { writer.add(i); });
    const uint64_t count = writer.finish();
    sources.clear();
    levels_[level].clear();  // closing their files frees their space
    if (level + 1 == levels_.size()) levels_.emplace_back();
    levels_[level + 1].push_back(LateRun{std::move(merged), count});
  }
}

size_t CoveredLengthStream::late_runs() const {
  size_t n = 0;
  for (const auto& level : levels_) n += level.size();
  return n;
}

uint64_t CoveredLengthStream::covered(uint64_t begin_ns, uint64_t end_ns) {
  if (end_ns <= begin_ns) return 0;
  CoverRun::Cursor edges(main_);
  const uint64_t main_before = edges.covered_before(begin_ns);
  uint64_t total = edges.covered_before(end_ns) - main_before;

  // Everything else, as one union: its length in the window, less what the
  // main run already covers of it.
  std::sort(behind_.begin(), behind_.end(),
            [](const TimeInterval& a, const TimeInterval& b) { return a.start_ns < b.start_ns; });
  std::vector<IntervalReader> sources;
  sources.reserve(late_runs() + 2);
  for (const auto& level : levels_)
    for (const LateRun& run : level)
      sources.emplace_back(*run.file, 0, run.count, limits_.block_intervals);
  sources.emplace_back(recent_);
  sources.emplace_back(behind_);
  CoverRun::Cursor overlap(main_);
  merge_union(sources, [&](const TimeInterval& i) {
    const uint64_t from = std::max(i.start_ns, begin_ns);
    const uint64_t to = std::min(i.end_ns, end_ns);
    if (to <= from) return;
    const uint64_t main_from = overlap.covered_before(from);
    total += (to - from) - (overlap.covered_before(to) - main_from);
  });
  return total;
}

}  // namespace gprof::analysis
