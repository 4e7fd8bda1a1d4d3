// The key-averages table in the layout of PyTorch's
// prof.key_averages().table() (torch.autograd.profiler_util._build_table).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"
#include "tools/analysis/render/format.h"
#include "tools/analysis/render/sort.h"
#include "tools/analysis/render/text_sink.h"

namespace gprof::analysis {

// What the percentage columns are shares of (docs/architecture.md §7): the Self CPU of
// all rows and the Self CUDA of the GPU activity rows.
struct TableTotals {
  double self_cpu_ns = 0;
  double self_device_ns = 0;
};
TableTotals table_totals(const std::vector<Row>& rows);
// Those totals from rows added one by one (render/large_table.h), and for
// --top-level-only, whose rows each hold their whole subtree, the same
// totals from the CPU totals of the rows that are no GPU activity.
struct RowTotals {
  TableTotals every;            // table_totals()
  double top_level_cpu_ns = 0;  // --top-level-only's Self CPU total
  void add(const Row& row);
  TableTotals totals(bool top_level_only) const;
};

struct TableOptions {
  std::optional<SortKey> sort;        // nullopt: rows as given
  size_t row_limit = 100;             // rows printed (totals still cover all); 0: all
  size_t max_name_width = 55;         // torch's max_name_column_width; at least 4
  std::optional<TimeUnit> time_unit;  // nullopt: auto-scale per value
  bool profile_memory = false;        // add the CPU Mem / Self CPU Mem columns
  std::string device_name = "CUDA";
  // Shares and the footer's totals; nullopt: table_totals(rows). A view that
  // shows part of the rows passes the totals of all, so that a share means
  // the same in every view.
  std::optional<TableTotals> totals;
  // The --group-by column after # of Calls (Row::group); empty: none.
  std::string group_title;
  // --view api: "GPU time" and "GPU time avg" of the work the calls issued
  // (Row::issued_device_ns), which the CUDA columns leave to the ranges.
  bool issued_columns = false;
  // The five CPU time columns; off in a view whose rows have no CPU time by
  // construction (--view kernels), where they were columns of zeros.
  bool cpu_columns = true;
  // Kernel rows by their whole demangled name; otherwise by
  // readable_kernel_name (render/short_name.h). CSV and JSON always give it whole.
  bool full_names = false;
};

// The name a row is shown by (TableOptions::full_names).
std::string display_name(const Row& row, const TableOptions& options);

// Columns: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
// then Self CUDA, Self CUDA %, CUDA total, CUDA time avg when any row has GPU
// time, GPU time and GPU time avg when issued_columns and a row issued GPU
// work, CPU Mem and Self CPU Mem when profile_memory (and CUDA Mem, Self CUDA
// Mem when some row's Self CUDA Mem is positive, as torch's has_device_mem),
// # of Calls, then the group column. The name column is right-aligned,
// min(longest name + 4, max_name_width) wide; names of max_name_width - 3
// characters or more are cut to that and end in "...". The group column is
// like torch's Input Shapes: min(max(longest value + 4, title), 80) wide,
// values cut to that. Other columns are 12 wide; every column is followed by
// two spaces. Footer: "Self CPU time total: ..." (and "Self CUDA time total:
// ..."). Percentages are shares of the totals. Returns "" when there are no
// rows, as torch does.
std::string render_table(std::vector<Row> rows, const TableOptions& options);
// The same text in parts, each handed to `write` as it is made: a table of
// a row per op (--group-by seq --limit 0) is not also held as one string.
void write_table(std::vector<Row> rows, const TableOptions& options, const TextSink& write);

// The table's content without its layout, shared by the other report formats
// (table_markdown.h, table_csv.h, report_json.h): which optional columns it
// has, its rows in order, and every cell as the table prints it.
struct TableColumns {
  bool cpu_time = true;      // Self CPU % ... CPU time avg (TableOptions::cpu_columns)
  bool device_time = false;  // Self CUDA ... CUDA time avg
  bool issued_time = false;  // GPU time, GPU time avg (TableOptions::issued_columns)
  bool cpu_mem = false;      // CPU Mem, Self CPU Mem (profile_memory)
  bool device_mem = false;   // CUDA Mem, Self CUDA Mem
  bool grouped = false;      // the --group-by column
};

// `rows` sorted by options.sort and cut to options.row_limit.
std::vector<Row> table_rows(std::vector<Row> rows, const TableOptions& options);

// What a table's layout takes from every row it could print, not only
// from those it prints: a table too large for memory is summed up as its
// rows go by (large_table.h), then printed from a second pass.
struct TableSummary {
  // No rows yet: the columns the options decide.
  explicit TableSummary(const TableOptions& options);
  size_t rows = 0;
  TableTotals totals;  // effective_totals()
  TableColumns columns;
  size_t longest_name = 0;   // display_length of display_name()
  size_t longest_group = 0;  // display_length of Row::group
  // Adds `row` to columns and the longest name and group (not to totals).
  void add(const Row& row, const TableOptions& options);
};
TableSummary summarize_table(const std::vector<Row>& rows, const TableOptions& options);

// The rows a table prints, in order: false when there are no more.
using RowCursor = std::function<bool(Row&)>;
// table_rows(rows) one by one.
RowCursor table_row_cursor(std::vector<Row> rows, const TableOptions& options);

// write_table() of the rows `summary` sums up, printed in the order and
// number `next` gives.
void write_table(const TableSummary& summary, const RowCursor& next, const TableOptions& options,
                 const TextSink& write);

std::vector<std::string> table_headers(const TableColumns& columns, const TableOptions& options);

// One row's cells, with its whole name and group value (never cut).
std::vector<std::string> table_cells(const Row& row, const TableColumns& columns,
                                     const TableOptions& options, const TableTotals& totals);

// "Self CPU time total: 1.234ms" (and the CUDA one), without line ends.
std::vector<std::string> table_footer(const TableColumns& columns, const TableOptions& options,
                                      const TableTotals& totals);

// options.totals or, without them, table_totals(rows).
TableTotals effective_totals(const std::vector<Row>& rows, const TableOptions& options);

}  // namespace gprof::analysis
