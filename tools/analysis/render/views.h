// The views of `gpuprof report` (docs/architecture.md §7): the combined key-averages
// table and its parts, and the tables of their own (memory, launches).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"

namespace gprof::analysis {

enum class View {
  kOps,       // ranges, API calls, GPU activities and [memory]: torch's table
  kRanges,    // NVTX ranges and [memory]
  kApi,       // CUDA API calls
  kKernels,   // kernels (GPU activities that are not copies or sets)
  kMemory,    // copies and sets by kind and size (transfers.h)
  kLaunches,  // API, queue and GPU time per launch (launches.h)
};

// "ops", "ranges", "api", "kernels", "memory", "launches".
std::optional<View> parse_view(std::string_view text);
std::vector<std::string_view> view_names();

// Whether the view is a part of the key-averages table.
bool is_key_averages_view(View view);

// Whether `row` is shown in a key-averages view.
bool row_in_view(const Row& row, View view);

}  // namespace gprof::analysis
