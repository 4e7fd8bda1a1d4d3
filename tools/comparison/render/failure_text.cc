#include "tools/comparison/render/failure_text.h"

#include <fmt/format.h>

#include <set>
#include <string_view>

#include "tools/analysis/render/format.h"
#include "tools/comparison/render/change_text.h"

namespace gprof::comparison {

std::string failure_subject(const Comparison& comparison, const Failure& failure) {
  if (!failure.row) {
    return std::string(total_title(comparison.options.rules[failure.rule].total));
  }
  return row_label(comparison.matched.rows[*failure.row].key);
}

std::string failure_values(const Comparison& comparison, const Failure& failure,
                           const std::string& arrow) {
  const Rule& rule = comparison.options.rules[failure.rule];
  const double base = failure.base.median;
  const double now = failure.now.median;
  if (rule.check == Check::kNew) return fmt::format("not in BASE, {} in NEW", format_calls(now));
  if (rule.check == Check::kVanished)
    return fmt::format("{} in BASE, not in NEW", format_calls(base));
  const Unit unit = rule.scope == Scope::kTotal ? total_unit(rule.total) : metric_unit(rule.metric);
  // From 0 the amount is what matters ("new: 15.703ms"), not a percentage.
  const std::string change =
      base == 0 ? "new: " + format_value(now, unit)
                : fmt::format("{}, {}", format_change(base, now, unit), format_relative(base, now));
  std::string out = fmt::format("{} {} {} ({})", format_value(base, unit), arrow,
                                format_value(now, unit), change);
  // Medians of several runs: the ranges are what the noise test judged.
  if (comparison.noise.applies())
    out += fmt::format("; runs: BASE {}..{}, NEW {}..{}", format_value(failure.base.min, unit),
                       format_value(failure.base.max, unit), format_value(failure.now.min, unit),
                       format_value(failure.now.max, unit));
  return out;
}

std::string failure_line(const Comparison& comparison, const Failure& failure,
                         const std::string& arrow) {
  return fmt::format("{}: {}: {}", failure_subject(comparison, failure),
                     rule_text(comparison.options.rules[failure.rule]),
                     failure_values(comparison, failure, arrow));
}

std::string verdict_line(const Comparison& comparison) {
  const size_t failed = comparison.gate.failed_rules();
  const size_t rules = comparison.options.rules.size();
  if (failed == 0)
    return fmt::format("OK: no rule failed ({} rule{})", rules, rules == 1 ? "" : "s");
  // Rules, failures, rows: one slow kernel fails its row, its launch call's
  // and the total, so the three counts differ and each is given.
  std::set<size_t> rows;
  size_t totals = 0;
  for (const Failure& failure : comparison.gate.failures) {
    if (failure.row)
      rows.insert(*failure.row);
    else
      ++totals;
  }
  const auto count = [](size_t n, std::string_view what) {
    return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
  };
  std::string where;
  if (!rows.empty()) where = count(rows.size(), "row");
  if (totals > 0) where += (where.empty() ? "" : " and ") + count(totals, "total");
  const size_t failures = comparison.gate.failures.size();
  return fmt::format("REGRESSION: {} of {} failed: {} on {}", failed, count(rules, "rule"),
                     count(failures, "failure"), where);
}

std::string rules_line(const Comparison& comparison) {
  std::string out;
  for (const Rule& rule : comparison.options.rules)
    out += (out.empty() ? "" : " ") + rule_text(rule);
  if (!comparison.options.rule_set.empty())
    out += fmt::format(" (the {} gate)", comparison.options.rule_set);
  // A rule that was not judged must not read as one that passed.
  for (const Rule& rule : comparison.options.rules)
    if (!judged(rule, comparison.noise))
      out += fmt::format("; {} not judged (it needs several runs a side)", rule_text(rule));
  if (comparison.options.min_time_ns > 0)
    out += fmt::format("; rows under {} never fail",
                       analysis::format_time(comparison.options.min_time_ns));
  return out;
}

std::string side_line(const SideInfo& side) {
  if (side.json_report) return side.argument + " (JSON report)";
  const size_t runs = side.runs.size();
  return fmt::format("{} ({} run{})", side.argument, runs, runs == 1 ? "" : "s");
}

}  // namespace gprof::comparison
