// `gpuprof diff --format md`: a GitHub pull-request comment or job summary.
// A verdict line (✅ / ❌), the failures, the top changes, the totals, the
// rows found on one side only, the rules and the noise test. Names are
// escaped as the report's Markdown table escapes them.
#pragma once

#include <string>

#include "tools/comparison/compare/comparison.h"

namespace gprof::comparison {

std::string render_markdown(const Comparison& comparison);

}  // namespace gprof::comparison
