// The pieces every table of `gpuprof diff --format md` is made of: lines,
// headers, and name cells that GitHub renders as written (code spans: no
// "@user" mention, no "#12" issue link, no ":x:" emoji inside them).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tools/comparison/runs/run_rows.h"

namespace gprof::comparison {

// "| a | b |\n"; cells are written as given (already escaped).
std::string markdown_line(const std::vector<std::string>& cells);

// The title line and the alignment line; the first `left` columns are
// left-aligned, the others (numbers) right-aligned.
std::string markdown_header(const std::vector<std::string>& titles, size_t left);

// The row's name (table_name) and group as code spans; names longer than
// `width` display characters are cut and end in "…" (0: never cut).
std::string markdown_name(const RowKey& key, size_t width = 0, bool full_names = true);

// "kernel `square(float*, int)`": the kind, then the name as above.
std::string markdown_row(const RowKey& key, size_t width = 0, bool full_names = true);

// A row's name in the tables: a kernel's readable_kernel_name unless `full_names`.
std::string table_name(const RowKey& key, bool full_names);

}  // namespace gprof::comparison
