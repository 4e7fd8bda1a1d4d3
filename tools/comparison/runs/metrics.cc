#include "tools/comparison/runs/metrics.h"

namespace gprof::comparison {
namespace {

struct MetricInfo {
  std::string_view name;
  std::string_view title;
  Unit unit;
};

constexpr std::array<MetricInfo, kMetricCount> kMetrics = {{
    {"count", "# of Calls", Unit::kCount},
    {"self_cpu", "Self CPU", Unit::kTime},
    {"cpu_total", "CPU total", Unit::kTime},
    {"self_cuda", "Self CUDA", Unit::kTime},
    {"cuda_total", "CUDA total", Unit::kTime},
    {"cpu_mem", "CPU Mem", Unit::kBytes},
    {"self_cpu_mem", "Self CPU Mem", Unit::kBytes},
    {"cuda_mem", "CUDA Mem", Unit::kBytes},
    {"self_cuda_mem", "Self CUDA Mem", Unit::kBytes},
}};

constexpr std::array<MetricInfo, kTotalMetricCount> kTotals = {{
    {"self_cpu", "Self CPU time total", Unit::kTime},
    {"self_cuda", "Self CUDA time total", Unit::kTime},
    {"kernels", "Kernels", Unit::kCount},
    {"copies", "Copies", Unit::kCount},
    {"sets", "Sets", Unit::kCount},
    {"api_calls", "API calls", Unit::kCount},
}};

}  // namespace

std::string_view metric_name(Metric metric) {
  return kMetrics[static_cast<size_t>(metric)].name;
}
std::string_view metric_title(Metric metric) {
  return kMetrics[static_cast<size_t>(metric)].title;
}
Unit metric_unit(Metric metric) {
  return kMetrics[static_cast<size_t>(metric)].unit;
}

std::optional<Metric> parse_metric(std::string_view text) {
  for (Metric metric : kAllMetrics)
    if (metric_name(metric) == text) return metric;
  return std::nullopt;
}

std::string_view total_name(TotalMetric metric) {
  return kTotals[static_cast<size_t>(metric)].name;
}
std::string_view total_title(TotalMetric metric) {
  return kTotals[static_cast<size_t>(metric)].title;
}
Unit total_unit(TotalMetric metric) {
  return kTotals[static_cast<size_t>(metric)].unit;
}

std::optional<TotalMetric> parse_total(std::string_view text) {
  for (TotalMetric metric : kAllTotals)
    if (total_name(metric) == text) return metric;
  return std::nullopt;
}

MetricValues row_values(const analysis::Row& row) {
  MetricValues values{};
  at(values, Metric::kCount) = static_cast<double>(row.count);
  at(values, Metric::kSelfCpu) = static_cast<double>(row.self_cpu_ns);
  at(values, Metric::kCpuTotal) = static_cast<double>(row.cpu_total_ns);
  at(values, Metric::kSelfCuda) = static_cast<double>(row.self_device_ns);
  at(values, Metric::kCudaTotal) = static_cast<double>(row.device_total_ns);
  at(values, Metric::kCpuMem) = static_cast<double>(row.cpu_mem);
  at(values, Metric::kSelfCpuMem) = static_cast<double>(row.self_cpu_mem);
  at(values, Metric::kCudaMem) = static_cast<double>(row.device_mem);
  at(values, Metric::kSelfCudaMem) = static_cast<double>(row.self_device_mem);
  return values;
}

}  // namespace gprof::comparison
