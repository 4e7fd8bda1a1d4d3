// The rows of both sides matched by key (kind, name, group): for each row
// and each total, the spread of every metric over the runs of each side. A
// row missing from a run counts 0 in that run.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "tools/comparison/compare/spread.h"
#include "tools/comparison/runs/metrics.h"
#include "tools/comparison/runs/run_rows.h"

namespace gprof::comparison {

struct SideRow {
  std::array<Spread, kMetricCount> metrics{};
  size_t runs_with_row = 0;  // 0: the row is not on this side

  const Spread& operator[](Metric metric) const { return metrics[static_cast<size_t>(metric)]; }
  bool present() const { return runs_with_row > 0; }
};

struct MatchedRow {
  RowKey key;
  SideRow base;
  SideRow now;
};

struct SideTotals {
  std::array<Spread, kTotalMetricCount> metrics{};
  const Spread& operator[](TotalMetric metric) const {
    return metrics[static_cast<size_t>(metric)];
  }
};

struct Matched {
  std::vector<MatchedRow> rows;  // base's rows in order, then those only in NEW
  SideTotals base_totals;
  SideTotals new_totals;
  size_t base_runs = 0;
  size_t new_runs = 0;
};

Matched match_runs(const std::vector<RunRows>& base, const std::vector<RunRows>& now);

}  // namespace gprof::comparison
