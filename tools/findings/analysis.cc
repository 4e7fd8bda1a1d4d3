#include "tools/findings/analysis.h"

#include <algorithm>

#include "tools/findings/rules/rule_tallies.h"

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

Analysis analyze(std::vector<Timeline> files, std::vector<const RuleSpec*> rules,
                 Thresholds thresholds, std::vector<std::string> ranges) {
  return analyze(
      std::move(files), std::move(rules), std::move(thresholds), std::move(ranges),
      [](const RuleSpec& rule, const RuleContext& context) { return rule.run(context); });
}

Analysis analyze(std::vector<Timeline> files, std::vector<const RuleSpec*> rules,
                 Thresholds thresholds, std::vector<std::string> ranges, const RuleRunner& run) {
  Analysis out;
  out.rules = std::move(rules);
  out.thresholds = std::move(thresholds);
  out.ranges = std::move(ranges);
  for (Timeline& timeline : files) {
    if (!timeline.setup_found) find_setup(timeline, out.thresholds);
    const uint64_t window = timeline.counted_window_ns();
    out.files.push_back(FileSummary{timeline.path, timeline.rank, timeline.pid, window,
                                    timeline.setup_ns(), timeline.steps.size()});
    out.window_ns += window;
    out.setup_ns += timeline.setup_ns();
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
