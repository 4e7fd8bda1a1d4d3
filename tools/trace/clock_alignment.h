// Putting several files on one time axis. Each file's times are on the clock
// its header names (CLOCK_MONOTONIC). Processes of one host share that
// clock, so their times are used as they are; files from several hosts, or
// on different clocks, are converted to wall time (clock + the header's
// offset_to_wall_ns), which is only as well aligned as the hosts' clocks.
// A file without a header (it was lost to damage) has no clock description:
// it is assumed to share the clock of the first file that has one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/gprof.pb.h"

namespace gprof::trace {

inline constexpr const char* kWallClock = "wall";

struct ClockPlan {
  std::string clock;           // the shared clock's name, or "wall"
  std::vector<int64_t> shift;  // per file: added to its times (ns)
  // Per file: no header, so placed on an assumed clock (as_file's, the
  // index of the file whose clock it borrowed; none when no file has one).
  std::vector<bool> assumed;
  std::optional<size_t> as_file;
};

// `headers[i]` is file i's header, nullptr when it has none.
ClockPlan plan_clocks(const std::vector<const pb::FileHeader*>& headers);

}  // namespace gprof::trace
