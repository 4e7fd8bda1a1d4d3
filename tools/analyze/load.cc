#include "tools/analyze/load.h"

#include <fmt/format.h>

#include "tools/analysis/render/format.h"
#include "tools/analyze/rule_support.h"

namespace gprof::analyze {

Loaded load_timelines(const std::vector<std::string>& paths, const Scope& scope) {
  TimelineBuilder builder(scope);
  Loaded out;
  out.infos = analysis::load_files(paths, builder);
  out.timelines = builder.take();
  return out;
}

Analysis analyze_with_defaults(const std::vector<Timeline>& timelines) {
  const std::span<const RuleSpec* const> rules = all_rules();
  return analyze(timelines, {rules.begin(), rules.end()}, Thresholds{}, {});
}

std::string brief_text(const Finding& finding) {
  std::string out =
      fmt::format("[{}] {}: {}, {} of the window", severity_name(finding.severity), finding.rule,
                  time_text(finding.impact_ns), share_text(finding.impact_share));
  if (!finding.where.ranges.empty()) {
    const Place& top = finding.where.ranges.front();
    out += fmt::format(", in '{}' ({})", analysis::single_line(top.name), share_text(top.share));
  }
  return out;
}

}  // namespace gprof::analyze
