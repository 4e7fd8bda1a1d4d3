#include "tools/comparison/compare/row_match.h"

#include <map>

namespace gprof::comparison {
namespace {

// values[run][metric] of one row on one side; rows of a run with the same
// key (a hand-edited JSON report) add up.
using PerRun = std::vector<MetricValues>;

SideRow side_row(const PerRun& runs, const std::vector<bool>& seen) {
  SideRow out;
  for (size_t m = 0; m < kMetricCount; ++m) {
    std::vector<double> values;
    for (const MetricValues& run : runs) values.push_back(run[m]);
    out.metrics[m] = spread_of(std::move(values));
  }
  for (bool present : seen) out.runs_with_row += present ? 1 : 0;
  return out;
}

SideTotals side_totals(const std::vector<RunRows>& runs) {
  SideTotals out;
  for (size_t m = 0; m < kTotalMetricCount; ++m) {
    std::vector<double> values;
    for (const RunRows& run : runs) values.push_back(run.totals[m]);
    out.metrics[m] = spread_of(std::move(values));
  }
  return out;
}

struct Collected {
  PerRun base, now;
  std::vector<bool> base_seen, now_seen;
};

}  // namespace

Matched match_runs(const std::vector<RunRows>& base, const std::vector<RunRows>& now) {
  std::map<RowKey, size_t> index;
  std::vector<RowKey> keys;
  std::vector<Collected> collected;
  auto add_side = [&](const std::vector<RunRows>& runs, bool is_base) {
    for (size_t r = 0; r < runs.size(); ++r) {
      for (const RunRow& row : runs[r].rows) {
        auto [it, inserted] = index.emplace(row.key, keys.size());
        if (inserted) {
          keys.push_back(row.key);
          collected.push_back(Collected{
              PerRun(base.size(), MetricValues{}), PerRun(now.size(), MetricValues{}),
              std::vector<bool>(base.size(), false), std::vector<bool>(now.size(), false)});
        }
        Collected& c = collected[it->second];
        MetricValues& values = is_base ? c.base[r] : c.now[r];
        for (size_t m = 0; m < kMetricCount; ++m) values[m] += row.values[m];
        (is_base ? c.base_seen : c.now_seen)[r] = true;
      }
    }
  };
  add_side(base, true);
  add_side(now, false);

  Matched out;
  out.base_runs = base.size();
  out.new_runs = now.size();
  out.base_totals = side_totals(base);
  out.new_totals = side_totals(now);
  out.rows.reserve(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    out.rows.push_back(MatchedRow{keys[i], side_row(collected[i].base, collected[i].base_seen),
                                  side_row(collected[i].now, collected[i].now_seen)});
  }
  return out;
}

}  // namespace gprof::comparison
