#include "tools/analysis/render/sort.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <numeric>
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

}  // namespace

double sort_value(const Row& row, SortKey key) {
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

void sort_rows(std::vector<Row>& rows, SortKey key, size_t limit) {
  const size_t keep = limit == 0 ? rows.size() : std::min(limit, rows.size());
  // Indices are sorted, each row's value taken once, and the rows moved
  // once: a stable sort of the rows themselves moved each (two strings, a
  // dozen numbers) through every merge, a third of a report with 550K rows
  // (--group-by seq). The index breaks ties, which keeps the sort stable.
  std::vector<uint32_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0U);
  const auto sort = [&](auto before) {
    if (keep < order.size())
      std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(keep), order.end(),
                        before);
    else
      std::sort(order.begin(), order.end(), before);
  };
  if (key == SortKey::kName) {
    sort([&](uint32_t a, uint32_t b) {
      const int c = rows[a].name.compare(rows[b].name);
      return c != 0 ? c < 0 : a < b;
    });
  } else {
    std::vector<double> values(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) values[i] = sort_value(rows[i], key);
    sort([&](uint32_t a, uint32_t b) {
      return values[a] != values[b] ? values[a] > values[b] : a < b;
    });
  }
  std::vector<Row> sorted;
  sorted.reserve(keep);
  for (size_t i = 0; i < keep; ++i) sorted.push_back(std::move(rows[order[i]]));
  rows = std::move(sorted);
}

}  // namespace gprof::analysis
