#include "tools/comparison/compare/comparison.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gprof::comparison {
namespace {

double change(const MatchedRow& row, Metric metric) {
  return std::fabs(row.now[metric].median - row.base[metric].median);
}

std::vector<size_t> sorted_rows(const Matched& matched, Metric first) {
  std::vector<size_t> order(matched.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const MatchedRow& x = matched.rows[a];
    const MatchedRow& y = matched.rows[b];
    for (Metric metric : {first, Metric::kSelfCuda, Metric::kCpuTotal}) {
      const double dx = change(x, metric);
      const double dy = change(y, metric);
      if (dx != dy) return dx > dy;
    }
    return x.key < y.key;
  });
  return order;
}

}  // namespace

Comparison compare(SideInfo base, SideInfo now, const std::vector<RunRows>& base_runs,
                   const std::vector<RunRows>& new_runs, CompareOptions options) {
  Matched matched = match_runs(base_runs, new_runs);
  NoiseTest noise(matched.base_runs, matched.new_runs, options.alpha);
  GateResult gate = run_gate(matched, GateOptions{options.rules, options.min_time_ns}, noise);
  std::vector<size_t> order = sorted_rows(matched, options.sort.value_or(Metric::kSelfCuda));
  std::vector<size_t> shown;
  for (size_t i = 0; i < order.size(); ++i)
    if (options.limit == 0 || i < options.limit || gate.rows[order[i]].failed)
      shown.push_back(order[i]);
  return Comparison{std::move(base),    std::move(now),  std::move(options), noise,
                    std::move(matched), std::move(gate), std::move(order),   std::move(shown),
                    std::nullopt};
}

std::vector<Metric> shown_metrics(const Comparison& comparison) {
  if (!comparison.options.metrics.empty()) return comparison.options.metrics;
  std::vector<Metric> metrics = {Metric::kCount, Metric::kSelfCuda, Metric::kCudaTotal,
                                 Metric::kSelfCpu, Metric::kCpuTotal};
  for (Metric metric :
       {Metric::kCpuMem, Metric::kSelfCpuMem, Metric::kCudaMem, Metric::kSelfCudaMem}) {
    const bool any =
        std::any_of(comparison.matched.rows.begin(), comparison.matched.rows.end(),
                    [metric](const MatchedRow& row) {
                      return row.base[metric].median != 0 || row.now[metric].median != 0;
                    });
    if (any) metrics.push_back(metric);
  }
  return metrics;
}

std::vector<size_t> rows_with_status(const Comparison& comparison, Status status) {
  std::vector<size_t> out;
  for (size_t i : comparison.order)
    if (comparison.gate.rows[i].status == status) out.push_back(i);
  return out;
}

}  // namespace gprof::comparison
