#include "tools/comparison/render/diff_json.h"

#include <nlohmann/json.hpp>

#include "tools/comparison/render/change_text.h"
#include "tools/comparison/render/failure_text.h"

namespace gprof::comparison {
namespace {

using nlohmann::ordered_json;

ordered_json spread_json(const Spread& spread) {
  return {{"median", spread.median}, {"min", spread.min}, {"max", spread.max}};
}

// null for an infinite change (base 0).
ordered_json relative_json(double base, double now) {
  const auto relative = relative_change(base, now);
  return relative ? ordered_json(*relative) : ordered_json(nullptr);
}

ordered_json change_json(const Spread& base, const Spread& now) {
  return {{"base", spread_json(base)},
          {"new", spread_json(now)},
          {"change", now.median - base.median},
          {"relative_change_pct", relative_json(base.median, now.median)}};
}

ordered_json side_json(const SideInfo& side) {
  ordered_json runs = ordered_json::array();
  for (const auto& files : side.runs) runs.push_back({{"files", files}});
  return {{"argument", side.argument}, {"json_report", side.json_report}, {"runs", runs}};
}

ordered_json key_json(const RowKey& key) {
  return {{"name", key.name}, {"kind", key.kind}, {"group", key.group}};
}

ordered_json rule_json(const Rule& rule, bool failed, bool judged) {
  ordered_json out;
  out["rule"] = rule_text(rule);
  out["scope"] = scope_name(rule.scope);
  switch (rule.check) {
    case Check::kNew:
      out["check"] = "new";
      break;
    case Check::kVanished:
      out["check"] = "vanished";
      break;
    case Check::kIncrease:
      out["check"] = "increase";
      out["metric"] =
          rule.scope == Scope::kTotal ? total_name(rule.total) : metric_name(rule.metric);
      out["threshold_pct"] = rule.percent;
      if (rule.scope != Scope::kTotal) out["matched_rows_only"] = rule.matched;
      out["repeated_runs_only"] = rule.repeated;
      break;
  }
  out["judged"] = judged;
  out["failed"] = failed;
  return out;
}

ordered_json row_json(const Comparison& comparison, size_t index) {
  const MatchedRow& row = comparison.matched.rows[index];
  const RowVerdict& verdict = comparison.gate.rows[index];
  ordered_json out = key_json(row.key);
  out["status"] = status_name(verdict.status);
  out["failed"] = verdict.failed;
  out["within_noise"] = verdict.within_noise;
  out["below_min_time"] = verdict.below_min_time;
  out["runs_with_row"] = {{"base", row.base.runs_with_row}, {"new", row.now.runs_with_row}};
  ordered_json metrics = ordered_json::object();
  for (Metric metric : kAllMetrics)
    metrics[std::string(metric_name(metric))] = change_json(row.base[metric], row.now[metric]);
  out["metrics"] = metrics;
  return out;
}

ordered_json failure_json(const Comparison& comparison, const Failure& failure) {
  ordered_json out;
  out["rule"] = rule_text(comparison.options.rules[failure.rule]);
  out["row"] =
      failure.row ? key_json(comparison.matched.rows[*failure.row].key) : ordered_json(nullptr);
  out["subject"] = failure_subject(comparison, failure);
  out["base"] = spread_json(failure.base);
  out["new"] = spread_json(failure.now);
  out["change"] = failure.now.median - failure.base.median;
  out["relative_change_pct"] = relative_json(failure.base.median, failure.now.median);
  out["message"] = failure_line(comparison, failure, "->");
  return out;
}

}  // namespace

std::string render_json(const Comparison& comparison) {
  ordered_json doc;
  doc["schema"] = "gprof.diff";
  doc["version"] = kDiffJsonVersion;
  doc["base"] = side_json(comparison.base);
  doc["new"] = side_json(comparison.now);
  doc["group_by"] = comparison.options.group_by;
  ordered_json rules = ordered_json::array();
  for (size_t r = 0; r < comparison.options.rules.size(); ++r)
    rules.push_back(rule_json(comparison.options.rules[r], comparison.gate.rule_failed[r],
                              judged(comparison.options.rules[r], comparison.noise)));
  doc["rules"] = rules;
  doc["default_rules"] = comparison.options.rule_set == kDefaultRuleSet;
  doc["rule_set"] = comparison.options.rule_set.empty() ? ordered_json(nullptr)
                                                        : ordered_json(comparison.options.rule_set);
  doc["min_time_ns"] = comparison.options.min_time_ns;
  doc["noise_test"] = {
      {"applied", comparison.noise.applies()},
      {"base_runs", comparison.noise.base_runs()},
      {"new_runs", comparison.noise.new_runs()},
      {"test", comparison.noise.applies() ? "mann-whitney-u" : "none"},
      {"alpha", comparison.noise.alpha()},
      {"critical_u",
       comparison.noise.applies() ? ordered_json(comparison.noise.critical_u()) : ordered_json()},
      {"p_value", comparison.noise.applies() ? ordered_json(comparison.noise.p_value())
                                             : ordered_json(nullptr)},
      {"description", comparison.noise.description()}};
  ordered_json totals = ordered_json::object();
  for (TotalMetric metric : kAllTotals)
    totals[std::string(total_name(metric))] =
        change_json(comparison.matched.base_totals[metric], comparison.matched.new_totals[metric]);
  doc["totals"] = totals;
  ordered_json rows = ordered_json::array();
  for (size_t i : comparison.order) rows.push_back(row_json(comparison, i));
  doc["rows"] = rows;
  ordered_json failures = ordered_json::array();
  for (const Failure& failure : comparison.gate.failures)
    failures.push_back(failure_json(comparison, failure));
  doc["failures"] = failures;
  doc["verdict"] = comparison.gate.regression() ? "regression" : "ok";
  doc["failed_rules"] = comparison.gate.failed_rules();
  doc["summary"] = verdict_line(comparison);
  if (comparison.new_findings) {
    ordered_json findings = ordered_json::array();
    for (const NewFinding& f : *comparison.new_findings)
      findings.push_back({{"rule", f.rule},
                          {"severity", f.severity},
                          {"impact_ns", f.impact_ns},
                          {"impact_share", f.impact_share},
                          {"summary", f.summary}});
    doc["new_findings"] = findings;
  }
  // Names are bytes from the files: invalid UTF-8 becomes U+FFFD, never an error.
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace gprof::comparison
