// Words for what a file's pb::CuptiStatus says about how GPU activity was
// captured, shared by `report` (why GPU times are missing) and `info`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/gprof.pb.h"

namespace gprof::analysis {

// "SUBSCRIBED (pairing by CUPTI correlation id)", ...
std::string describe_cupti_state(pb::CuptiStatus::State state);

// cuptiGetVersion as CUDA 13 reports it, major*10000 + minor*100 + patch:
// 130001 -> "13.0.1 (130001)". Older API numbers (below 10000) stay raw: "18";
// 0 -> "unknown".
std::string format_cupti_version(uint32_t version);

// Why a file with no GPU records has no GPU times, in one line:
// "CUPTI was not set up (no CUDA_INJECTION64_PATH initialization)" when no
// status was written or it is NOT_STARTED; CPU_ONLY: the status's reason;
// otherwise "CUPTI (SUBSCRIBED) delivered no GPU activity records". No
// status in a file without its footer says nothing: the status may have
// been in the part that is missing.
std::string missing_gpu_times_reason(const std::optional<pb::CuptiStatus>& status,
                                     bool has_footer = true);

struct FileInfo;

// One line per interval when the file's GPU records were not flowing
// because another tool took CUPTI over (CuptiStatus.gaps): when (from the
// file's first record), how long, why, how it ended, and the counts around
// it (FileInfo.gaps when load_files filled them). Empty when there was none.
std::vector<std::string> cupti_gap_lines(const FileInfo& file);

}  // namespace gprof::analysis
