// `gpuprof diff --format text` (the default): the sides and the noise test,
// a table of the top changes, the totals, the rows found on one side only,
// the rules and the verdict with one line per failure.
#pragma once

#include <cstddef>
#include <string>

#include "tools/comparison/compare/comparison.h"

namespace gprof::comparison {

// Names longer than `name_width` characters are cut to name_width - 3 and
// end in "...", as the report's table does.
std::string render_text(const Comparison& comparison, size_t name_width = 55);

// The status column of the tables: the status, "within noise" for a change
// inside the runs' spread, ", fails" for a new or vanished row that failed.
std::string status_text(const RowVerdict& verdict);

}  // namespace gprof::comparison
