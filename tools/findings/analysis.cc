#include "tools/findings/analysis.h"

#include <algorithm>

namespace gprof::findings {

bool Analysis::fired(std::string_view rule) const {
  return std::any_of(findings.begin(), findings.end(),
                     [&](const Finding& f) { return f.rule == rule; });
}

void hide_below(Analysis& analysis, double min_share) {
  analysis.min_share = min_share;
  std::vector<Finding> shown;
  for (Finding& f : analysis.findings)
    (f.impact_share < min_share ? analysis.hidden : shown).push_back(std::move(f));
  analysis.findings = std::move(shown);
}

Analysis analyze(const std::vector<Timeline>& files, std::vector<const RuleSpec*> rules,
                 Thresholds thresholds, std::vector<std::string> ranges) {
  return analyze(
      files, std::move(rules), std::move(thresholds), std::move(ranges),
      [](const RuleSpec& rule, const RuleContext& context) { return rule.run(context); });
}

Analysis analyze(const std::vector<Timeline>& files, std::vector<const RuleSpec*> rules,
                 Thresholds thresholds, std::vector<std::string> ranges, const RuleRunner& run) {
  Analysis out;
  out.rules = std::move(rules);
  out.thresholds = std::move(thresholds);
  out.ranges = std::move(ranges);
  for (const Timeline& timeline : files) {
    out.files.push_back(FileSummary{timeline.path, timeline.rank, timeline.pid,
                                    timeline.window_ns(), timeline.steps.size()});
    out.window_ns += timeline.window_ns();
    out.steps += timeline.steps.size();
    if (out.step_pattern.empty()) out.step_pattern = timeline.step_pattern;
  }
  const RuleContext context{files, out.thresholds, out.window_ns};
  std::vector<std::pair<size_t, Finding>> found;  // (rule order, finding)
  for (size_t i = 0; i < out.rules.size(); ++i)
    if (std::optional<Finding> finding = run(*out.rules[i], context))
      found.emplace_back(i, std::move(*finding));
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    if (a.second.severity != b.second.severity) return a.second.severity > b.second.severity;
    if (a.second.impact_ns != b.second.impact_ns) return a.second.impact_ns > b.second.impact_ns;
    return a.first < b.first;
  });
  for (auto& [order, finding] : found) out.findings.push_back(std::move(finding));
  return out;
}

}  // namespace gprof::findings
