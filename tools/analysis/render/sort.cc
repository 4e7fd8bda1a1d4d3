#include "tools/analysis/render/sort.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace gprof::analysis {
namespace {

struct Alias {
  std::string_view text;  // normalized: lower case, '_' for separators
  SortKey key;
};

// The first alias of each key is its canonical name.
constexpr std::array kAliases = {
    Alias{"self_cpu_time_total", SortKey::kSelfCpu},
    Alias{"self_cpu", SortKey::kSelfCpu},
    Alias{"cpu_time_total", SortKey::kCpuTotal},
    Alias{"cpu_total", SortKey::kCpuTotal},
    Alias{"cpu_time", SortKey::kCpuAvg},
    Alias{"cpu_time_avg", SortKey::kCpuAvg},
    Alias{"self_cuda_time_total", SortKey::kSelfDevice},
    Alias{"self_device_time_total", SortKey::kSelfDevice},
    Alias{"self_cuda", SortKey::kSelfDevice},
    Alias{"cuda_time_total", SortKey::kDeviceTotal},
    Alias{"device_time_total", SortKey::kDeviceTotal},
    Alias{"cuda_total", SortKey::kDeviceTotal},
    Alias{"cuda_time", SortKey::kDeviceAvg},
    Alias{"device_time", SortKey::kDeviceAvg},
    Alias{"cuda_time_avg", SortKey::kDeviceAvg},
    Alias{"cpu_memory_usage", SortKey::kCpuMem},
    Alias{"cpu_mem", SortKey::kCpuMem},
    Alias{"self_cpu_memory_usage", SortKey::kSelfCpuMem},
    Alias{"self_cpu_mem", SortKey::kSelfCpuMem},
    Alias{"cuda_memory_usage", SortKey::kDeviceMem},
    Alias{"device_memory_usage", SortKey::kDeviceMem},
    Alias{"cuda_mem", SortKey::kDeviceMem},
    Alias{"self_cuda_memory_usage", SortKey::kSelfDeviceMem},
    Alias{"self_device_memory_usage", SortKey::kSelfDeviceMem},
    Alias{"self_cuda_mem", SortKey::kSelfDeviceMem},
    Alias{"gpu_time_total", SortKey::kIssued},
    Alias{"gpu_time", SortKey::kIssued},
    Alias{"count", SortKey::kCount},
    Alias{"calls", SortKey::kCount},
    Alias{"#_of_calls", SortKey::kCount},
    Alias{"name", SortKey::kName},
    Alias{"key", SortKey::kName},
};

// The value a key sorts by; larger first.
double value(const Row& row, SortKey key) {
  switch (key) {
    case SortKey::kSelfCpu:
      return static_cast<double>(row.self_cpu_ns);
    case SortKey::kCpuTotal:
      return static_cast<double>(row.cpu_total_ns);
    case SortKey::kCpuAvg:
      return row.cpu_avg_ns();
    case SortKey::kSelfDevice:
      return static_cast<double>(row.self_device_ns);
    case SortKey::kDeviceTotal:
      return static_cast<double>(row.device_total_ns);
    case SortKey::kDeviceAvg:
      return row.device_avg_ns();
    case SortKey::kCpuMem:
      return static_cast<double>(row.cpu_mem);
    case SortKey::kSelfCpuMem:
      return static_cast<double>(row.self_cpu_mem);
    case SortKey::kDeviceMem:
      return static_cast<double>(row.device_mem);
    case SortKey::kSelfDeviceMem:
      return static_cast<double>(row.self_device_mem);
    case SortKey::kIssued:
      return static_cast<double>(row.issued_device_ns);
    case SortKey::kCount:
      return static_cast<double>(row.count);
    case SortKey::kName:
      break;
  }
  return 0;
}

}  // namespace

std::string normalize_sort_name(std::string_view text) {
  while (!text.empty() && (text.back() == '%' || text.back() == ' ')) text.remove_suffix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  std::string out;
  for (char c : text) {
    if (c == ' ' || c == '-' || c == '_') {
      if (out.empty() || out.back() != '_') out += '_';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::optional<SortKey> parse_sort_key(std::string_view text) {
  const std::string normalized = normalize_sort_name(text);
  for (const Alias& alias : kAliases)
    if (alias.text == normalized) return alias.key;
  return std::nullopt;
}

std::string_view sort_key_name(SortKey key) {
  for (const Alias& alias : kAliases)
    if (alias.key == key) return alias.text;
  return {};
}

std::vector<std::string_view> sort_key_names() {
  std::vector<std::string_view> names;
  for (const Alias& alias : kAliases)
    if (alias.text == sort_key_name(alias.key)) names.push_back(alias.text);
  return names;
}

void sort_rows(std::vector<Row>& rows, SortKey key) {
  if (key == SortKey::kName) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.name < b.name; });
    return;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [key](const Row& a, const Row& b) { return value(a, key) > value(b, key); });
}

}  // namespace gprof::analysis
