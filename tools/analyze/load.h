// Reads sidecar files into timelines and runs rules on them: what
// `gpuprof analyze`, the findings `gpuprof record` prints and the new
// findings of `gpuprof diff` share.
#pragma once

#include <string>
#include <vector>

#include "tools/analysis/read/profile.h"
#include "tools/analyze/analysis.h"
#include "tools/analyze/timeline_builder.h"

namespace gprof::analyze {

struct Loaded {
  std::vector<analysis::FileInfo> infos;
  std::vector<Timeline> timelines;
};

Loaded load_timelines(const std::vector<std::string>& paths, const Scope& scope);

// Every rule with its default thresholds.
Analysis analyze_with_defaults(const std::vector<Timeline>& timelines);

// "[high] gpu-idle: 12.3ms, 65.0% of the window, in 'data_loader' (100.0%)": one
// line of a finding, for record's summary and diff's list.
std::string brief_text(const Finding& finding);

}  // namespace gprof::analyze
