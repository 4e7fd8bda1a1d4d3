// The "Changes" section of `gpuprof diff --format md`, sized for a pull-
// request comment (about 800 px): one cell per metric with the NEW value and
// its relative change, a mark on each cell a rule failed on, and the rows
// whose every change lies inside the runs' spread folded into a <details>
// block, so the rows that matter are the ones a reviewer sees.
#pragma once

#include <string>
#include <vector>

#include "tools/comparison/compare/comparison.h"

namespace gprof::comparison {

// Names longer than this are cut in the compact tables (the JSON output has
// them whole): a demangled template kernel would otherwise take the width.
inline constexpr size_t kMarkdownNameWidth = 48;

// The metrics of the compact table: --metrics when given, else # of Calls,
// Self CUDA, CPU total and each metric a rule of the gate checks on rows.
std::vector<Metric> compact_metrics(const Comparison& comparison);

std::string markdown_changes(const Comparison& comparison);

}  // namespace gprof::comparison
