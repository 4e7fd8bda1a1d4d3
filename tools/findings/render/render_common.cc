#include <fmt/format.h>

#include "tools/analysis/render/format.h"
#include "tools/analysis/render/short_name.h"
#include "tools/findings/render/render.h"
#include "tools/findings/rules/rule_support.h"

namespace gprof::findings {

std::string metric_text(const Metric& metric) {
  switch (metric.unit) {
    case Unit::kTime:
      return time_text(metric.value);
    case Unit::kBytes:
      return bytes_text(metric.value);
    case Unit::kShare:
      return share_text(metric.value);
    case Unit::kPerStep:
      return fmt::format("{:.1f}", metric.value);
    case Unit::kCount:
      break;
  }
  return fmt::format("{:.0f}", metric.value);
}

std::string places_text(const std::vector<Place>& places) {
  std::string out;
  for (const Place& place : places)
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", analysis::single_line(place.name),
                       share_text(place.share));
  return out;
}

std::vector<Place> shown_activities(const Analysis& a, const Where& where) {
  std::vector<Place> places = where.activities;
  if (!a.full_names)
    for (Place& place : places) place.name = analysis::readable_kernel_name(place.name);
  return places;
}

std::string steps_text(const Where& where) {
  if (where.steps == 0) return {};
  return fmt::format("{} of {} steps ({})", where.steps_hit, where.steps, where.step_pattern);
}

std::string hidden_line(const Analysis& a) {
  std::string rules;
  for (const Finding& f : a.hidden)
    rules +=
        fmt::format("{}{} ({})", rules.empty() ? "" : ", ", f.rule, share_text(f.impact_share));
  return fmt::format("Not shown, under {} of the window each: {}. --min-share 0 shows them.",
                     share_text(a.min_share), rules);
}

std::string gap_text(const Gap& gap) {
  std::string out = fmt::format("{} at +{} on device {} of {}", time_text(gap.length_ns),
                                time_text(gap.offset_ns), gap.device, gap.file);
  out += gap.range.empty() ? ", in no range" : ", in '" + analysis::single_line(gap.range) + "'";
  for (const std::string& call : gap.calls) out += "; " + call;
  return out;
}

}  // namespace gprof::findings
