// The one clock of a recording (docs/architecture.md §3.5): CLOCK_MONOTONIC in ns.
#pragma once

#include <time.h>

#include <cstdint>

namespace gprof {

inline uint64_t clock_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t wall_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline constexpr const char* kClockName = "CLOCK_MONOTONIC";

// wall = clock + offset, sampled as a tight pair.
inline int64_t clock_offset_to_wall_ns() {
  uint64_t before = clock_ns();
  uint64_t wall = wall_ns();
  uint64_t after = clock_ns();
  return static_cast<int64_t>(wall) - static_cast<int64_t>(before + (after - before) / 2);
}

}  // namespace gprof
