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

// A file the stream declined, read in memory on its own: its records feed
// the tallies as the rules' run() would add them, then go, so that the
// files after it stream in the memory they would have had.
void add_in_memory(uint32_t index, const std::string& path, const Scope& scope,
                   const Thresholds& thresholds, stream::Tallies& tallies, Timeline& timeline,
                   analysis::FileInfo& info) {
  TimelineBuilder builder(scope);
  info = analysis::load_file(index, path, builder);
  timeline = std::move(builder.take().front());
  timeline.file = index;
  find_setup(timeline, thresholds);
  tallies.add_timeline(timeline);
  // What a streamed file's timeline keeps (streamed_file.h): no records.
  std::vector<Call>().swap(timeline.calls);
  std::vector<Span>().swap(timeline.ranges);
  std::vector<Work>().swap(timeline.work);
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
    for (uint32_t i = 0; i < paths.size(); ++i) {
      std::string why;
      if (stream::stream_file(i, paths[i], scope, timelines[i], out.infos[i], tallies, why))
        continue;
      out.in_memory.emplace_back(paths[i], why);
      // The progress display counts the file once, as read again now.
      retract_read_progress(out.infos[i].status);
      add_in_memory(i, paths[i], scope, thresholds, tallies, timelines[i], out.infos[i]);
    }
    for (const Timeline& timeline : timelines)
      out.range_matched = out.range_matched || !timeline.windows.empty();
    out.analysis = analyze(std::move(timelines), std::move(rules), std::move(thresholds),
                           scope.ranges, [&](const RuleSpec& rule, const RuleContext& context) {
                             return tallies.finish(rule.id, context);
                           });
    return out;
  }
  Loaded loaded = load_timelines(paths, scope);
  out.infos = std::move(loaded.infos);
  for (const Timeline& timeline : loaded.timelines)
    out.range_matched = out.range_matched || !timeline.windows.empty();
  out.analysis =
      analyze(std::move(loaded.timelines), std::move(rules), std::move(thresholds), scope.ranges);
  return out;
}

AnalyzedFiles analyze_files_with_defaults(const std::vector<std::string>& paths,
                                          const Scope& scope) {
  return analyze_files(paths, every_rule(), Thresholds{}, scope);
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
