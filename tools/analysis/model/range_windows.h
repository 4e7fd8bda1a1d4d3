// The windows in time of the start/end ranges --range names (cpu_tree.h,
// kNodeInWindow): an event of any thread lies in one when it starts at or
// after the window's start and ends by its end. Overlapping windows merge
// first, so that an event is in the one window that starts last at or
// before it, or in none.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace gprof::analysis {

class RangeWindows {
 public:
  void add(uint64_t start_ns, uint64_t end_ns) { windows_.emplace_back(start_ns, end_ns); }
  bool empty() const { return windows_.empty(); }
  // Once every window was added.
  void merge() {
    std::sort(windows_.begin(), windows_.end());
    std::vector<std::pair<uint64_t, uint64_t>> merged;
    for (const auto& w : windows_) {
      if (!merged.empty() && w.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, w.second);
      else
        merged.push_back(w);
    }
    windows_.swap(merged);
  }
  // After merge(). An end before the start counts as the start.
  bool contains(uint64_t start_ns, uint64_t end_ns) const {
    auto it = std::upper_bound(windows_.begin(), windows_.end(), start_ns,
                               [](uint64_t t, const auto& w) { return t < w.first; });
    if (it == windows_.begin()) return false;
    --it;
    return std::max(end_ns, start_ns) <= it->second;
  }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> windows_;
};

}  // namespace gprof::analysis
