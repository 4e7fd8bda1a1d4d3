// What `gpuprof diff` compares (docs/diff.md): per row, the key-averages
// columns in raw units (docs/columns.md); per run, the totals under the table
// and the number of GPU activities and API calls.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"

namespace gprof::comparison {

enum class Unit : uint8_t { kCount, kTime, kBytes };

enum class Metric : uint8_t {
  kCount,
  kSelfCpu,
  kCpuTotal,
  kSelfCuda,
  kCudaTotal,
  kCpuMem,
  kSelfCpuMem,
  kCudaMem,
  kSelfCudaMem,
};
inline constexpr size_t kMetricCount = 9;
inline constexpr std::array<Metric, kMetricCount> kAllMetrics = {
    Metric::kCount,      Metric::kSelfCpu,   Metric::kCpuTotal,
    Metric::kSelfCuda,   Metric::kCudaTotal, Metric::kCpuMem,
    Metric::kSelfCpuMem, Metric::kCudaMem,   Metric::kSelfCudaMem};
// Medians of several runs need not be whole: values are doubles throughout.
using MetricValues = std::array<double, kMetricCount>;

enum class TotalMetric : uint8_t { kSelfCpu, kSelfCuda, kKernels, kCopies, kSets, kApiCalls };
inline constexpr size_t kTotalMetricCount = 6;
inline constexpr std::array<TotalMetric, kTotalMetricCount> kAllTotals = {
    TotalMetric::kSelfCpu, TotalMetric::kSelfCuda, TotalMetric::kKernels,
    TotalMetric::kCopies,  TotalMetric::kSets,     TotalMetric::kApiCalls};
using TotalValues = std::array<double, kTotalMetricCount>;

// "count", "self_cpu", "cpu_total", "self_cuda", "cuda_total", "cpu_mem",
// "self_cpu_mem", "cuda_mem", "self_cuda_mem".
std::string_view metric_name(Metric metric);
// The column title of `gpuprof report`: "# of Calls", "Self CUDA", ...
std::string_view metric_title(Metric metric);
Unit metric_unit(Metric metric);
std::optional<Metric> parse_metric(std::string_view text);

// "self_cpu", "self_cuda", "kernels", "copies", "sets", "api_calls".
std::string_view total_name(TotalMetric metric);
// "Self CPU time total", "Self CUDA time total", "Kernels", ...
std::string_view total_title(TotalMetric metric);
Unit total_unit(TotalMetric metric);
std::optional<TotalMetric> parse_total(std::string_view text);

inline double& at(MetricValues& values, Metric metric) {
  return values[static_cast<size_t>(metric)];
}
inline double at(const MetricValues& values, Metric metric) {
  return values[static_cast<size_t>(metric)];
}
inline double at(const TotalValues& values, TotalMetric metric) {
  return values[static_cast<size_t>(metric)];
}

MetricValues row_values(const analysis::Row& row);

}  // namespace gprof::comparison
