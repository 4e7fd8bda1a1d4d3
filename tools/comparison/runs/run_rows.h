// The rows of one run, as `gpuprof diff` matches them: each keyed by
// (kind, name, group), with its metrics and the run's totals.
#pragma once

#include <compare>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"
#include "tools/comparison/runs/metrics.h"

namespace gprof::comparison {

struct RowKey {
  std::string kind;  // range | api | kernel | memcpy | memset | memory, as in the JSON report
  std::string name;
  std::string group;  // the --group-by value; empty when grouping by name
  auto operator<=>(const RowKey&) const = default;
};

// Kernels, copies and sets: the rows of the `gpu` rule scope.
bool is_gpu_kind(std::string_view kind);

struct RunRow {
  RowKey key;
  MetricValues values{};
};

struct RunRows {
  std::vector<RunRow> rows;
  TotalValues totals{};
};

// `rows` of one run (view ops) with totals computed from them: Self CPU of
// every row, Self CUDA of the GPU rows (the table's footer), # of Calls of
// the kernel, copy, set and API rows.
RunRows run_rows(const std::vector<analysis::Row>& rows);

// The totals that follow from the rows alone.
TotalValues totals_of(const std::vector<RunRow>& rows);

}  // namespace gprof::comparison
