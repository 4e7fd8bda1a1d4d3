// The key-averages table (table.h) as a GitHub-flavoured Markdown table:
// the same columns and cells, names and group values whole (never cut).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/row.h"
#include "tools/analysis/table.h"

namespace gprof::analysis {

// `text` with a backslash before each character Markdown could take for
// syntax inside a table cell: \ ` * _ [ ] < > | ~ &; line breaks (NVTX
// names may hold them) become spaces.
std::string escape_markdown(std::string_view text);

// Header line, alignment line (name left, the rest right), one line per row,
// a blank line, then the footer lines ("Self CPU time total: ...") each as
// its own paragraph. Returns "" when there are no rows, as render_table does.
std::string render_markdown_table(std::vector<Row> rows, const TableOptions& options);

}  // namespace gprof::analysis
