// How long a GPU was busy: the union of its work intervals, so that
// overlapping kernels on several streams count once.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace gprof::analysis {

using Interval = std::pair<uint64_t, uint64_t>;  // [start, end)

// The length of the union of `intervals` clipped to [begin, end). Sorts them.
uint64_t covered_length(std::vector<Interval>& intervals, uint64_t begin, uint64_t end);

// The sum of the lengths of `intervals` clipped to [begin, end), overlaps
// counted as often as they occur (time several threads spent waiting).
uint64_t clipped_sum(const std::vector<Interval>& intervals, uint64_t begin, uint64_t end);

}  // namespace gprof::analysis
