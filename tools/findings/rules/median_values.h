// The values whose median a rule reports (copy sizes, kernel times, launch
// intervals): one per event of a file, so they are kept in an external sort
// (tools/analysis/read/spill_sorter.h) that spills to a temporary file beyond a few
// MiB, and the median is read off the sorted stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "tools/analysis/read/spill_sorter.h"

namespace gprof::findings {

class MedianValues {
 public:
  void add(uint64_t value) { sorter_.add(value); }
  size_t size() const { return sorter_.size(); }
  // analysis::quantile(sorted values, 0.5), to the bit; 0 when empty. Once:
  // no add() afterwards.
  double median();

 private:
  static constexpr size_t kBudget = (size_t{4} << 20) / sizeof(uint64_t);
  analysis::SpillSorter<uint64_t, std::less<uint64_t>> sorter_{kBudget};
};

}  // namespace gprof::findings
