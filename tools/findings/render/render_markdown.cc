#include <fmt/format.h>

#include "tools/analysis/render/table_markdown.h"
#include "tools/findings/render/render.h"
#include "tools/findings/rules/rule_support.h"

namespace gprof::findings {
namespace {

std::string code_places(const std::vector<Place>& places) {
  std::string out;
  for (const Place& place : places)
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", analysis::markdown_code(place.name),
                       share_text(place.share));
  return out;
}

}  // namespace

std::string render_markdown(const Analysis& a) {
  std::string out = fmt::format("## gpuprof analyze: {}\n\n",
                                count_text(a.findings.size(), "finding", "findings"));
  out += fmt::format("{}, window {}", count_text(a.files.size(), "file", "files"),
                     time_text(a.window_ns));
  if (a.setup_ns > 0) out += fmt::format(" (after {} of setup)", time_text(a.setup_ns));
  if (a.steps > 0)
    out += fmt::format(", {} steps ({})", a.steps, analysis::markdown_code(a.step_pattern));
  out += ".\n\n";
  if (!a.hidden.empty()) out += analysis::escape_markdown(hidden_line(a)) + "\n\n";
  if (!a.findings.empty()) {
    out += "| # | Severity | Rule | Impact | Where |\n|---:|---|---|---:|---|\n";
    size_t number = 0;
    for (const Finding& f : a.findings) {
      std::string where = code_places(f.where.ranges);
      if (f.where.steps > 0) where += "; " + analysis::escape_markdown(steps_text(f.where));
      out += fmt::format("| {} | {} | `{}` | {} ({}) | {} |\n", ++number, severity_name(f.severity),
                         f.rule, time_text(f.impact_ns), share_text(f.impact_share), where);
    }
  }
  size_t number = 0;
  for (const Finding& f : a.findings) {
    out += fmt::format("\n### {}. `{}` ({})\n\n{}\n\n", ++number, f.rule, severity_name(f.severity),
                       analysis::escape_markdown(f.summary));
    out += "| Evidence | Value |\n|---|---:|\n";
    for (const Metric& m : f.evidence)
      out += fmt::format("| {} | {} |\n", analysis::escape_markdown(m.label),
                         analysis::escape_markdown(metric_text(m)));
    out += "\n**Where:** ranges " + code_places(f.where.ranges);
    if (f.where.steps > 0) out += "; " + analysis::escape_markdown(steps_text(f.where));
    const std::vector<Place> activities = shown_activities(a, f.where);
    const std::pair<const char*, const std::vector<Place>*> places[] = {
        {"threads", &f.where.threads},
        {"streams", &f.where.streams},
        {"devices", &f.where.devices},
        {"files", &f.where.files},
        {"GPU activities", &activities}};
    for (const auto& [label, list] : places)
      if (!list->empty()) out += fmt::format("; {} {}", label, code_places(*list));
    out += "\n";
    if (!f.gaps.empty()) {
      out += "\n**Longest gaps:**\n\n";
      for (const Gap& gap : f.gaps) out += "- " + analysis::escape_markdown(gap_text(gap)) + "\n";
    }
    out += "\n**Suggestion:** " + analysis::escape_markdown(f.suggestion) + "\n";
  }
  std::string quiet;
  for (const RuleSpec* rule : a.rules)
    if (!a.fired(rule->id)) quiet += fmt::format("{}`{}`", quiet.empty() ? "" : ", ", rule->id);
  if (!quiet.empty()) out += "\nNo finding: " + quiet + ".\n";
  return out;
}

}  // namespace gprof::findings
