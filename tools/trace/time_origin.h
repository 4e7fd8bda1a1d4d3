// Where the trace's time axis starts. Chromium DevTools' Performance panel
// ("Load profile") drops an event at ts 0, and the earliest record would be
// exactly there: the origin is that record minus a lead, so the first event
// is at ts 1.000 (us) and nothing is at 0. --window times and the GPU busy
// buckets are in the same times the trace shows.
#pragma once

#include <cstdint>

namespace gprof::trace {

inline constexpr int64_t kLeadNs = 1000;

}  // namespace gprof::trace
