#include "tools/analysis/aggregate/gpu_busy.h"

#include <algorithm>

namespace gprof::analysis {

uint64_t covered_length(std::vector<Interval>& intervals, uint64_t begin, uint64_t end) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t total = 0;
  uint64_t reached = begin;  // everything before is counted (or outside)
  for (const auto& [first, last] : intervals) {
    const uint64_t from = std::max(first, reached);
    const uint64_t to = std::min(last, end);
    if (to > from) {
      total += to - from;
      reached = to;
    }
  }
  return total;
}

uint64_t clipped_sum(const std::vector<Interval>& intervals, uint64_t begin, uint64_t end) {
  uint64_t total = 0;
  for (const auto& [first, last] : intervals) {
    const uint64_t from = std::max(first, begin);
    const uint64_t to = std::min(last, end);
    if (to > from) total += to - from;
  }
  return total;
}

}  // namespace gprof::analysis
