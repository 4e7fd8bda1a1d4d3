// Time added up per step: stretches that come by start (a sweep's output),
// each split over the steps it overlaps, read with a cursor that only moves
// forward.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tools/analyze/timeline/timeline.h"

namespace gprof::analyze {

class StepTotals {
 public:
  explicit StepTotals(const std::vector<Step>& steps) : steps_(&steps), ns_(steps.size(), 0) {}

  // [start_ns, end_ns), no earlier in start than the last one added.
  void add(uint64_t start_ns, uint64_t end_ns) {
    const std::vector<Step>& steps = *steps_;
    while (next_ < steps.size() && steps[next_].end_ns <= start_ns) ++next_;
    for (size_t i = next_; i < steps.size() && steps[i].start_ns < end_ns; ++i) {
      const uint64_t from = std::max(start_ns, steps[i].start_ns);
      const uint64_t to = std::min(end_ns, steps[i].end_ns);
      if (from < to) ns_[i] += to - from;
    }
  }
  const std::vector<uint64_t>& ns() const { return ns_; }

 private:
  const std::vector<Step>* steps_;
  std::vector<uint64_t> ns_;
  size_t next_ = 0;
};

}  // namespace gprof::analyze
