#include "tools/comparison/compare/gate.h"

#include <algorithm>
#include <cmath>

namespace gprof::comparison {
namespace {

// Whether `rule` fails on `row`, and with which values.
std::optional<Failure> check_row(const Rule& rule, size_t rule_index, const MatchedRow& row,
                                 size_t row_index, const NoiseTest& noise) {
  const Spread& base_count = row.base[Metric::kCount];
  const Spread& new_count = row.now[Metric::kCount];
  bool fails = false;
  Spread base, now;
  switch (rule.check) {
    case Check::kNew:
      // With several runs, only a row in every NEW run (count > 0 = base max).
      base = base_count;
      now = new_count;
      fails = !row.base.present() && row.now.present() && noise.increase_beyond(base, now);
      break;
    case Check::kVanished:
      base = base_count;
      now = new_count;
      fails = row.base.present() && !row.now.present() && noise.increase_beyond(now, base);
      break;
    case Check::kIncrease:
      // Rows on one side only are information for a matched rule.
      if (rule.matched && !(row.base.present() && row.now.present())) return std::nullopt;
      base = row.base[rule.metric];
      now = row.now[rule.metric];
      fails = exceeds(base.median, now.median, rule.percent) && noise.increase_beyond(base, now);
      break;
  }
  if (!fails) return std::nullopt;
  return Failure{rule_index, row_index, base, now};
}

bool changed(const MatchedRow& row) {
  for (size_t m = 0; m < kMetricCount; ++m)
    if (row.base.metrics[m].median != row.now.metrics[m].median) return true;
  return false;
}

// Every metric that changed did so inside the spread of the runs.
bool all_within_noise(const MatchedRow& row, const NoiseTest& noise) {
  for (size_t m = 0; m < kMetricCount; ++m) {
    const Spread& base = row.base.metrics[m];
    const Spread& now = row.now.metrics[m];
    if (base.median != now.median && !noise.within_noise(base, now)) return false;
  }
  return true;
}

}  // namespace

std::string_view status_name(Status status) {
  switch (status) {
    case Status::kRegression:
      return "regression";
    case Status::kNew:
      return "new";
    case Status::kVanished:
      return "vanished";
    case Status::kChanged:
      return "changed";
    case Status::kSame:
      break;
  }
  return "same";
}

size_t GateResult::failed_rules() const {
  return static_cast<size_t>(std::count(rule_failed.begin(), rule_failed.end(), true));
}

bool exceeds(double base, double now, double percent) {
  if (!(now > base)) return false;
  if (base == 0) return true;
  return now - base > std::fabs(base) * percent / 100.0;
}

double row_time(const MatchedRow& row) {
  double time = 0;
  for (const SideRow* side : {&row.base, &row.now})
    for (Metric metric : {Metric::kSelfCuda, Metric::kCudaTotal, Metric::kCpuTotal})
      time = std::max(time, (*side)[metric].median);
  return time;
}

bool judged(const Rule& rule, const NoiseTest& noise) {
  return !rule.repeated || (noise.applies() && noise.p_value() <= noise.alpha());
}

GateResult run_gate(const Matched& matched, const GateOptions& options, const NoiseTest& noise) {
  GateResult result;
  result.rows.resize(matched.rows.size());
  result.rule_failed.assign(options.rules.size(), false);
  for (size_t i = 0; i < matched.rows.size(); ++i)
    result.rows[i].below_min_time = row_time(matched.rows[i]) < options.min_time_ns;

  for (size_t r = 0; r < options.rules.size(); ++r) {
    const Rule& rule = options.rules[r];
    const size_t first = result.failures.size();
    if (!judged(rule, noise)) continue;
    if (rule.scope == Scope::kTotal) {
      const Spread& base = matched.base_totals[rule.total];
      const Spread& now = matched.new_totals[rule.total];
      if (exceeds(base.median, now.median, rule.percent) && noise.increase_beyond(base, now))
        result.failures.push_back(Failure{r, std::nullopt, base, now});
    } else {
      for (size_t i = 0; i < matched.rows.size(); ++i) {
        const MatchedRow& row = matched.rows[i];
        if (!row_in_scope(rule.scope, row.key.kind) || result.rows[i].below_min_time) continue;
        if (auto failure = check_row(rule, r, row, i, noise)) {
          result.failures.push_back(*failure);
          result.rows[i].failed = true;
        }
      }
    }
    std::stable_sort(result.failures.begin() + static_cast<std::ptrdiff_t>(first),
                     result.failures.end(), [](const Failure& a, const Failure& b) {
                       return std::fabs(a.now.median - a.base.median) >
                              std::fabs(b.now.median - b.base.median);
                     });
    result.rule_failed[r] = result.failures.size() > first;
  }

  for (size_t i = 0; i < matched.rows.size(); ++i) {
    const MatchedRow& row = matched.rows[i];
    RowVerdict& verdict = result.rows[i];
    if (!row.base.present()) {
      verdict.status = Status::kNew;
    } else if (!row.now.present()) {
      verdict.status = Status::kVanished;
    } else if (verdict.failed) {
      verdict.status = Status::kRegression;
    } else if (changed(row)) {
      verdict.status = Status::kChanged;
      verdict.within_noise = noise.applies() && all_within_noise(row, noise);
    }
  }
  return result;
}

}  // namespace gprof::comparison
