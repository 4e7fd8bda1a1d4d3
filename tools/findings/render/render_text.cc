#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tools/analysis/render/format.h"
#include "tools/findings/render/render.h"
#include "tools/findings/rules/rule_support.h"

namespace gprof::findings {
namespace {

constexpr size_t kWidth = 100;

// `text` wrapped at word boundaries to kWidth columns, each line after
// `indent`.
std::string wrapped(std::string_view text, std::string_view indent) {
  std::string out, line;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(at, end - at);
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > kWidth) {
      out += fmt::format("{}{}\n", indent, line);
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    at = end + 1;
  }
  if (!line.empty()) out += fmt::format("{}{}\n", indent, line);
  return out;
}

std::string header(const Analysis& a) {
  std::string out = fmt::format(
      "gpuprof analyze: {} in {}, window {}", count_text(a.findings.size(), "finding", "findings"),
      count_text(a.files.size(), "file", "files"), time_text(a.window_ns));
  if (a.setup_ns > 0) out += fmt::format(" (after {} of setup)", time_text(a.setup_ns));
  if (a.steps > 0) out += fmt::format(", {} steps ({})", a.steps, a.step_pattern);
  if (!a.ranges.empty()) {
    std::string ranges;
    for (const std::string& r : a.ranges) ranges += (ranges.empty() ? "" : ", ") + ("'" + r + "'");
    out += ", inside " + ranges;
  }
  return out + "\n";
}

}  // namespace

std::string render_text(const Analysis& a) {
  std::string out = header(a);
  if (!a.hidden.empty()) out += hidden_line(a) + "\n";
  size_t number = 0;
  for (const Finding& f : a.findings) {
    out += fmt::format("\n{}. [{}] {}\n", ++number, severity_name(f.severity), f.rule);
    out += wrapped(f.summary, "   ");
    out += "   Evidence:\n";
    size_t width = 0;
    for (const Metric& m : f.evidence) width = std::max(width, analysis::display_length(m.label));
    for (const Metric& m : f.evidence)
      out +=
          fmt::format("     {}{}  {}\n", m.label,
                      std::string(width - analysis::display_length(m.label), ' '), metric_text(m));
    out += "   Where:\n";
    const std::vector<Place> activities = shown_activities(a, f.where);
    const std::pair<const char*, const std::vector<Place>*> places[] = {
        {"ranges ", &f.where.ranges},  {"threads", &f.where.threads}, {"streams", &f.where.streams},
        {"devices", &f.where.devices}, {"files  ", &f.where.files},   {"GPU    ", &activities}};
    for (const auto& [label, list] : places) {
      if (list->empty()) continue;
      out += fmt::format("     {}  {}\n", label, places_text(*list));
      if (list == &f.where.ranges && f.where.steps > 0)
        out += fmt::format("     steps    {}\n", steps_text(f.where));
    }
    if (!f.gaps.empty()) {
      out += "   Longest gaps:\n";
      for (const Gap& gap : f.gaps) out += wrapped(gap_text(gap), "     ");
    }
    out += "   Suggestion:\n";
    out += wrapped(f.suggestion, "     ");
  }
  std::vector<std::string_view> quiet;
  for (const RuleSpec* rule : a.rules)
    if (!a.fired(rule->id)) quiet.push_back(rule->id);
  if (!quiet.empty()) out += fmt::format("\nNo finding: {}\n", fmt::join(quiet, ", "));
  return out;
}

}  // namespace gprof::findings
