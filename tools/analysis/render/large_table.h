// A key-averages view of a KeyAverages table, as report prints it: one pass
// over the rows sums up what the layout and the lines under the table need
// (ViewTally, the same for both kinds of table) and keeps the rows it will
// print in print order; the writers take them from there (table.h's
// RowCursor). A table held in memory is sorted there; one too large for
// memory (spilled: a row per op with --group-by seq) is read from the merge
// of its runs, the first --limit rows kept in memory, or all of them in an
// external sort with --limit 0 or a large one: the same bytes.
#pragma once

#include <cstddef>
#include <optional>

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/render/sort.h"
#include "tools/analysis/render/table.h"
#include "tools/analysis/render/views.h"

namespace gprof::analysis {

struct LargeTableOptions {
  View view = View::kOps;
  // The shares' totals are those of every row (RowTotals).
  bool top_level_only = false;
  // Ties of options.sort are broken by this first (report's default sort
  // orders the GPU activities among themselves by CUDA total).
  std::optional<SortKey> then_by;
};

struct LargeTable {
  explicit LargeTable(const TableOptions& options) : summary(options) {}
  TableSummary summary;       // of the rows in view; totals: of every row
  bool any_rows = false;      // in any view
  bool memory_row = false;    // a [memory] row in view
  bool any_group = false;     // a row in view with a --group-by value
  bool moved_memory = false;  // a row in view with memory in it
  RowCursor rows;             // those printed, in order
};

// Reads `rows` (empty afterwards), spilled or not. `options`: the sort and
// the limit.
LargeTable read_table(KeyAverages& rows, const TableOptions& options,
                      const LargeTableOptions& large);

}  // namespace gprof::analysis
