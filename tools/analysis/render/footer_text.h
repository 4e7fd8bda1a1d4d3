// What a footer says about how the recording went, besides losses: holds at
// the memory cap (GPROF_ON_FULL=wait), queue memory, how hot-path timestamps
// became recording-clock times. Files written before these fields existed
// have none of them, and none of this is printed for them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/gprof.pb.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

// The holds of one or more files' footers added up.
struct HoldTotals {
  uint64_t count = 0;     // times a thread was held
  uint64_t total_ns = 0;  // all holds together
  uint64_t max_ns = 0;    // the longest one
  uint64_t files = 0;     // files with at least one hold
};

HoldTotals footer_holds(const pb::Footer& footer);
HoldTotals total_holds(const std::vector<FileInfo>& files);

// "3 times, 12.500ms in all (longest 4.100ms)".
std::string describe_holds(const HoldTotals& holds);

// "peak 12.00 MB of 256.00 MB"; empty when the footer has no cap.
std::string describe_queue_memory(const pb::Footer& footer);

// "TSC at 2.995 GHz, 57 calibration pairs, uncertainty <= 31ns, residual <=
// 12ns", "clock_gettime".
std::string describe_timestamps(const pb::TimestampCalibration& calibration);

// The line under a table when some file's program was held: "The program
// was held 3 times for 12.500ms at GPROF_MAX_MEMORY (longest 4.100ms;
// GPROF_ON_FULL=wait)"; empty when none was.
std::string holds_note(const std::vector<FileInfo>& files);

}  // namespace gprof::analysis
