#include "tools/comparison/runs/run_rows.h"

namespace gprof::comparison {

bool is_gpu_kind(std::string_view kind) {
  return kind == "kernel" || kind == "memcpy" || kind == "memset";
}

TotalValues totals_of(const std::vector<RunRow>& rows) {
  TotalValues totals{};
  auto add = [&totals](TotalMetric metric, double value) {
    totals[static_cast<size_t>(metric)] += value;
  };
  for (const RunRow& row : rows) {
    const double count = at(row.values, Metric::kCount);
    add(TotalMetric::kSelfCpu, at(row.values, Metric::kSelfCpu));
    if (is_gpu_kind(row.key.kind)) add(TotalMetric::kSelfCuda, at(row.values, Metric::kSelfCuda));
    if (row.key.kind == "kernel") add(TotalMetric::kKernels, count);
    if (row.key.kind == "memcpy") add(TotalMetric::kCopies, count);
    if (row.key.kind == "memset") add(TotalMetric::kSets, count);
    if (row.key.kind == "api") add(TotalMetric::kApiCalls, count);
  }
  return totals;
}

RunRows run_rows(const std::vector<analysis::Row>& rows) {
  RunRows out;
  out.rows.reserve(rows.size());
  for (const analysis::Row& row : rows)
    out.rows.push_back(RunRow{
        RowKey{std::string(analysis::row_kind_name(row)), row.name, row.group}, row_values(row)});
  out.totals = totals_of(out.rows);
  return out;
}

}  // namespace gprof::comparison
