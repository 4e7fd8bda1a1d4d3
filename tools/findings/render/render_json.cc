#include <nlohmann/json.hpp>

#include "tools/findings/render/render.h"

namespace gprof::findings {
namespace {

using nlohmann::ordered_json;

ordered_json places_json(const std::vector<Place>& places) {
  ordered_json out = ordered_json::array();
  for (const Place& place : places)
    out.push_back({{"name", place.name}, {"cost_ns", place.cost_ns}, {"share", place.share}});
  return out;
}

ordered_json finding_json(const Finding& f) {
  ordered_json evidence = ordered_json::object();
  for (const Metric& m : f.evidence)
    evidence[m.key] = {{"value", m.value}, {"unit", unit_name(m.unit)}, {"label", m.label}};
  ordered_json where = {
      {"ranges", places_json(f.where.ranges)},
      {"steps", f.where.steps == 0 ? ordered_json(nullptr)
                                   : ordered_json{{"pattern", f.where.step_pattern},
                                                  {"with_finding", f.where.steps_hit},
                                                  {"total", f.where.steps}}},
      {"threads", places_json(f.where.threads)},
      {"streams", places_json(f.where.streams)},
      {"devices", places_json(f.where.devices)},
      {"files", places_json(f.where.files)},
      {"activities", places_json(f.where.activities)}};
  ordered_json out = {{"rule", f.rule},
                      {"severity", severity_name(f.severity)},
                      {"summary", f.summary},
                      {"impact_ns", f.impact_ns},
                      {"impact_share", f.impact_share},
                      {"evidence", evidence},
                      {"where", where}};
  if (!f.gaps.empty()) {
    ordered_json gaps = ordered_json::array();
    for (const Gap& g : f.gaps)
      gaps.push_back({{"file", g.file},
                      {"device", g.device},
                      {"offset_ns", g.offset_ns},
                      {"length_ns", g.length_ns},
                      {"range", g.range.empty() ? ordered_json(nullptr) : ordered_json(g.range)},
                      {"calls", g.calls}});
    out["gaps"] = gaps;
  }
  out["suggestion"] = f.suggestion;
  return out;
}

}  // namespace

std::string render_json(const Analysis& a) {
  ordered_json files = ordered_json::array();
  for (const FileSummary& file : a.files)
    files.push_back({{"path", file.path},
                     {"pid", file.pid},
                     {"rank", file.rank.empty() ? ordered_json(nullptr) : ordered_json(file.rank)},
                     {"window_ns", file.window_ns},
                     {"setup_ns", file.setup_ns},
                     {"steps", file.steps}});
  ordered_json rules = ordered_json::array();
  for (const RuleSpec* rule : a.rules) {
    ordered_json thresholds = ordered_json::object();
    for (const ThresholdSpec& spec : rule->thresholds)
      thresholds[std::string(spec.key)] = a.thresholds.get(rule->id, spec.key);
    rules.push_back({{"id", rule->id}, {"fired", a.fired(rule->id)}, {"thresholds", thresholds}});
  }
  ordered_json findings = ordered_json::array();
  for (const Finding& f : a.findings) findings.push_back(finding_json(f));
  ordered_json hidden = ordered_json::array();
  for (const Finding& f : a.hidden)
    hidden.push_back(
        {{"rule", f.rule}, {"impact_ns", f.impact_ns}, {"impact_share", f.impact_share}});
  const ordered_json doc = {
      {"schema", "gprof.analyze"},
      {"version", kJsonVersion},
      {"files", files},
      {"window_ns", a.window_ns},
      {"setup_ns", a.setup_ns},
      {"ranges", a.ranges},
      {"steps", a.steps == 0 ? ordered_json(nullptr)
                             : ordered_json{{"pattern", a.step_pattern}, {"count", a.steps}}},
      {"rules", rules},
      {"findings", findings},
      {"min_share", a.min_share},
      {"hidden", hidden}};
  return doc.dump(2) + "\n";
}

}  // namespace gprof::findings
