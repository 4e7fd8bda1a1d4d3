// The key-averages table in the layout of PyTorch's
// prof.key_averages().table() (torch.autograd.profiler_util._build_table).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tools/analysis/format.h"
#include "tools/analysis/row.h"
#include "tools/analysis/sort.h"

namespace gprof::analysis {

struct TableOptions {
  std::optional<SortKey> sort;        // nullopt: rows as given
  size_t row_limit = 100;             // rows printed (totals still cover all); 0: all
  size_t max_name_width = 55;         // torch's max_name_column_width; at least 4
  std::optional<TimeUnit> time_unit;  // nullopt: auto-scale per value
  bool profile_memory = false;        // add the CPU Mem / Self CPU Mem columns
  std::string device_name = "CUDA";
};

// Columns: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
// then Self CUDA, Self CUDA %, CUDA total, CUDA time avg when any row has GPU
// time, the memory columns when asked, and # of Calls. The name column is
// right-aligned, min(longest name + 4, max_name_width) wide; names of
// max_name_width - 3 characters or more are cut to that and end in "...".
// Other columns are 12 wide; every column is followed by two spaces. Footer:
// "Self CPU time total: ..." (and "Self CUDA time total: ..."). Percentages
// are shares of the summed Self CPU (Self CUDA: of GPU activity rows).
// Returns "" when there are no rows, as torch does.
std::string render_table(std::vector<Row> rows, const TableOptions& options);

}  // namespace gprof::analysis
