// The key-averages table (table.h) as a GitHub-flavoured Markdown table:
// the same columns and cells, names and group values whole (never cut).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"
#include "tools/analysis/render/table.h"
#include "tools/analysis/render/text_sink.h"

namespace gprof::analysis {

// `text` with a backslash before each character Markdown could take for
// syntax inside a table cell: \ ` * _ [ ] < > | ~ &; line breaks (NVTX
// names may hold them) and other control characters become spaces.
std::string escape_markdown(std::string_view text);

// `text` as a code span for a table cell: the one form in which GitHub turns
// no "@user" into a mention, no "#12" into an issue link and no ":x:" into
// an emoji, all of which NVTX range names may hold. The fence is longer than
// any run of backticks inside, '|' is escaped (GFM splits cells before code
// spans are read) and line breaks and other control characters become spaces. "" stays "".
std::string markdown_code(std::string_view text);

// Names and group values are code spans (markdown_code), other cells are
// escaped. Header line, alignment line (name left, the rest right), one line per row,
// a blank line, then the footer lines ("Self CPU time total: ...") each as
// its own paragraph. Returns "" when there are no rows, as render_table does.
std::string render_markdown_table(std::vector<Row> rows, const TableOptions& options);
// The same text in parts, each handed to `write` as it is made: a table of
// a row per op (--group-by seq --limit 0) is not also held as one string.
void write_markdown_table(std::vector<Row> rows, const TableOptions& options,
                          const TextSink& write);
// The rows `summary` sums up, in the order and number `next` gives.
void write_markdown_table(const TableSummary& summary, const RowCursor& next,
                          const TableOptions& options, const TextSink& write);

}  // namespace gprof::analysis
