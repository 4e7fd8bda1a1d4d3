// Putting several files on one time axis. Each file's times are on the clock
// its header names (CLOCK_MONOTONIC). Processes of one host share that
// clock, so their times are used as they are; files from several hosts, or
// on different clocks, are converted to wall time (clock + the header's
// offset_to_wall_ns), which is only as well aligned as the hosts' clocks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/gprof.pb.h"

namespace gprof::trace {

inline constexpr const char* kWallClock = "wall";

struct ClockPlan {
  std::string clock;           // the shared clock's name, or "wall"
  std::vector<int64_t> shift;  // per file: added to its times (ns)
};

// `headers[i]` is file i's header, nullptr when it has none.
ClockPlan plan_clocks(const std::vector<const pb::FileHeader*>& headers);

}  // namespace gprof::trace
