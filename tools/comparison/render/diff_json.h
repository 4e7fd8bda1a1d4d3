// `gpuprof diff --format json`: schema "gprof.diff", version 1
// (docs/diff.md). Every row, whatever --limit says; raw nanoseconds and
// bytes.
#pragma once

#include <string>

#include "tools/comparison/compare/comparison.h"

namespace gprof::comparison {

inline constexpr int kDiffJsonVersion = 1;

// Pretty-printed (2 spaces), ending in a newline.
std::string render_json(const Comparison& comparison);

}  // namespace gprof::comparison
