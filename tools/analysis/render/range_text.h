// Words for what a file's NVTX events amounted to (nvtx_ranges.h), shared by
// `report` (one line under the table) and `info`.
#pragma once

#include <string>

#include "tools/analysis/model/nvtx_ranges.h"

namespace gprof::analysis {

// "1 unbalanced pop, 2 open at exit (closed at the last timestamp), 1 end
// without start, 1 ended on another thread": the nonzero ones; "" when none.
std::string describe_range_problems(const RangeCounts& counts);

// "3 push/pop, 1 start/end, 2 marks", then "; " and the problems; "none"
// when the file has no NVTX ranges or marks.
std::string describe_ranges(const RangeCounts& counts);

}  // namespace gprof::analysis
