// The key-averages table (table.h) as CSV (RFC 4180): the table's columns
// with raw values, whole names, LF line ends.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"
#include "tools/analysis/render/table.h"
#include "tools/analysis/render/text_sink.h"

namespace gprof::analysis {

// One RFC 4180 field: quoted when it holds a comma, a double quote, CR or
// LF, with embedded quotes doubled; as is otherwise.
std::string csv_field(std::string_view text);

// A header line of the table's column titles, raw ones with their unit
// ("Self CPU (ns)", "CPU Mem (B)", "Self CPU %"), then a line per row (sorted
// and limited as the table is). Times are integer nanoseconds (averages
// rounded to the nearest), memory in bytes, percentages plain decimals with
// 4 digits after the point (empty when the total is 0: the table's NaN).
// Lines end in LF. The header is written even when there are no rows.
std::string render_csv_table(std::vector<Row> rows, const TableOptions& options);
// The same lines, each handed to `write` as it is made: a table of a row per
// op (--group-by seq --limit 0) is not held twice, as rows and as text.
void write_csv_table(std::vector<Row> rows, const TableOptions& options, const TextSink& write);
// The rows `summary` sums up, in the order and number `next` gives.
void write_csv_table(const TableSummary& summary, const RowCursor& next,
                     const TableOptions& options, const TextSink& write);

}  // namespace gprof::analysis
