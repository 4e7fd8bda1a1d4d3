// Sort keys of the key-averages tables: torch's `sort_by` names and the
// column titles users see.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"

namespace gprof::analysis {

enum class SortKey {
  kSelfCpu,        // self_cpu_time_total, "Self CPU", "Self CPU %"
  kCpuTotal,       // cpu_time_total, "CPU total", "CPU total %"
  kCpuAvg,         // cpu_time, cpu_time_avg, "CPU time avg"
  kSelfDevice,     // self_cuda_time_total, self_device_time_total, "Self CUDA", "Self CUDA %"
  kDeviceTotal,    // cuda_time_total, device_time_total, "CUDA total"
  kDeviceAvg,      // cuda_time, device_time, cuda_time_avg, "CUDA time avg"
  kCpuMem,         // cpu_memory_usage, "CPU Mem"
  kSelfCpuMem,     // self_cpu_memory_usage, "Self CPU Mem"
  kDeviceMem,      // cuda_memory_usage, device_memory_usage, "CUDA Mem"
  kSelfDeviceMem,  // self_cuda_memory_usage, self_device_memory_usage, "Self CUDA Mem"
  kIssued,         // gpu_time_total, "GPU time": what API calls issued (--view api)
  kCount,          // count, calls, "# of Calls"
  kName,           // name, key, "Name" (ascending; every other key sorts descending)
};

// Case-insensitive; spaces, '_' and '-' are interchangeable and a trailing
// '%' is ignored, so "Self CPU", "self-cpu" and "self_cpu_time_total" all work.
std::optional<SortKey> parse_sort_key(std::string_view text);

// What the parsers compare: lower case, runs of ' ', '_' and '-' as one '_',
// surrounding spaces and trailing '%' dropped ("Self CPU %" -> "self_cpu").
std::string normalize_sort_name(std::string_view text);

// The canonical (torch) name of a key, e.g. "self_cpu_time_total".
std::string_view sort_key_name(SortKey key);

// Every canonical name, for help texts and error messages.
std::vector<std::string_view> sort_key_names();

// The value rows sort by, larger first (not for kName).
double sort_value(const Row& row, SortKey key);

// Descending by `key` (ascending for kName); ties keep their order, as
// Python's sorted(reverse=True) does. `limit` (0: all): only the first
// `limit` rows of that order are kept.
void sort_rows(std::vector<Row>& rows, SortKey key, size_t limit = 0);

}  // namespace gprof::analysis
