// Words for throughput.h's numbers: "Label: value" fields that `report`
// prints under its table and `info` in its own layout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/throughput.h"
#include "tools/analysis/render/format.h"

namespace gprof::analysis {

using Field = std::pair<std::string, std::string>;

// For a file that is not empty():
//   Window:       4.000ms (first step start to last step end)
//                 4.000ms (first to last record)           without steps
//   Steps:        4 ranges matching 'ProfilerStep*': 1000.00 steps/s,
//                 32000.00 samples/s (32 per step)
//   Step time:    min 0.900ms, median 1.000ms, p95 1.085ms, max 1.100ms
//   GPU 0:        busy 2.500ms (62.50% of the window)
//   Synchronize:  0.400ms in 3 calls (10.00% of the window)
// Rates are left out of a zero-length window.
std::vector<Field> throughput_fields(const FileThroughput& file,
                                     std::optional<uint64_t> samples_per_step,
                                     std::optional<TimeUnit> unit);

// The report's block: "Label: value" lines for each file that is not
// empty(), each line prefixed "[pid N] " when more than one file has some.
std::string render_throughput(const std::vector<FileThroughput>& files,
                              std::optional<uint64_t> samples_per_step,
                              std::optional<TimeUnit> unit);

}  // namespace gprof::analysis
