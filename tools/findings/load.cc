#include "tools/findings/load.h"

#include <fmt/format.h>

#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/render/format.h"
#include "tools/findings/rules/rule_support.h"
#include "tools/findings/stream/streamed_file.h"

namespace gprof::findings {

Loaded load_timelines(const std::vector<std::string>& paths, const Scope& scope) {
  TimelineBuilder builder(scope);
  Loaded out;
  out.infos = analysis::load_files(paths, builder);
  out.timelines = builder.take();
  return out;
}

namespace {

std::vector<const RuleSpec*> every_rule() {
  const std::span<const RuleSpec* const> rules = all_rules();
  return {rules.begin(), rules.end()};
}

}  // namespace

AnalyzedFiles analyze_files(const std::vector<std::string>& paths,
                            std::vector<const RuleSpec*> rules, Thresholds thresholds,
                            const Scope& scope) {
  AnalyzedFiles out;
  if (!analysis::in_memory_asked()) {
    stream::Tallies tallies(thresholds);
    std::vector<Timeline> timelines(paths.size());
    out.infos.resize(paths.size());
    bool streamed = true;
    for (uint32_t i = 0; i < paths.size() && streamed; ++i) {
      std::string why;
      streamed = stream::stream_file(i, paths[i], scope, timelines[i], out.infos[i], tallies, why);
      if (!streamed) {
        out.in_memory.emplace_back(paths[i], why);
        // The progress display counts the files once, as read again below.
        for (uint32_t k = 0; k <= i; ++k) retract_read_progress(out.infos[k].status);
      }
    }
    if (streamed) {
      for (const Timeline& timeline : timelines)
        out.range_matched = out.range_matched || !timeline.windows.empty();
      out.analysis = analyze(timelines, std::move(rules), std::move(thresholds), scope.ranges,
                             [&](const RuleSpec& rule, const RuleContext& context) {
                               return tallies.finish(rule.id, context);
                             });
      return out;
    }
  }
  Loaded loaded = load_timelines(paths, scope);
  out.infos = std::move(loaded.infos);
  for (const Timeline& timeline : loaded.timelines)
    out.range_matched = out.range_matched || !timeline.windows.empty();
  out.analysis = analyze(loaded.timelines, std::move(rules), std::move(thresholds), scope.ranges);
  return out;
}

AnalyzedFiles analyze_files_with_defaults(const std::vector<std::string>& paths,
                                          const Scope& scope) {
  return analyze_files(paths, every_rule(), Thresholds{}, scope);
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

}  // namespace gprof::findings
