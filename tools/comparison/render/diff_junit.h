// `gpuprof diff --format junit`: JUnit XML for CI test reports. One
// testsuite "gprof diff", one testcase per rule; a failed rule has a
// <failure> that lists its rows (or its total) with base -> new.
#pragma once

#include <string>

#include "tools/comparison/compare/comparison.h"

namespace gprof::comparison {

std::string render_junit(const Comparison& comparison);

}  // namespace gprof::comparison
