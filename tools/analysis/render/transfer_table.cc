#include "tools/analysis/render/transfer_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <utility>

#include "tools/analysis/render/sort.h"
#include "tools/analysis/render/table_layout.h"

namespace gprof::analysis {
namespace {

// The first alias of each key is its canonical name.
constexpr std::array<std::pair<std::string_view, TransferSortKey>, 11> kAliases = {{
    {"name", TransferSortKey::kName},
    {"key", TransferSortKey::kName},
    {"count", TransferSortKey::kCount},
    {"calls", TransferSortKey::kCount},
    {"#_of_calls", TransferSortKey::kCount},
    {"bytes", TransferSortKey::kBytes},
    {"total_bytes", TransferSortKey::kBytes},
    {"gpu_total", TransferSortKey::kGpuTotal},
    {"gpu_avg", TransferSortKey::kGpuAvg},
    {"bandwidth", TransferSortKey::kBandwidth},
    {"bandwidth_(gb/s)", TransferSortKey::kBandwidth},
}};

double value(const TransferRow& row, TransferSortKey key) {
  switch (key) {
    case TransferSortKey::kCount:
      return static_cast<double>(row.count);
    case TransferSortKey::kBytes:
      return static_cast<double>(row.bytes);
    case TransferSortKey::kGpuTotal:
      return static_cast<double>(row.gpu_ns);
    case TransferSortKey::kGpuAvg:
      return row.avg_gpu_ns();
    case TransferSortKey::kBandwidth:
      return row.bandwidth_gbps();
    case TransferSortKey::kName:
      break;
  }
  return 0;
}

std::string bandwidth(const TransferRow& row) {
  if (row.gpu_ns == 0) return "-";
  return fmt::format("{:.2f} GB/s", row.bandwidth_gbps());
}

}  // namespace

std::optional<TransferSortKey> parse_transfer_sort_key(std::string_view text) {
  const std::string normalized = normalize_sort_name(text);
  for (const auto& [alias, key] : kAliases)
    if (alias == normalized) return key;
  return std::nullopt;
}

std::vector<std::string_view> transfer_sort_key_names() {
  std::vector<std::string_view> names;
  for (const auto& alias : kAliases)
    if (std::none_of(names.begin(), names.end(), [&](std::string_view n) {
          return parse_transfer_sort_key(n) == alias.second;
        }))
      names.push_back(alias.first);
  return names;
}

void sort_transfer_rows(std::vector<TransferRow>& rows, TransferSortKey key) {
  if (key == TransferSortKey::kName) {
    std::stable_sort(rows.begin(), rows.end(), [](const TransferRow& a, const TransferRow& b) {
      return a.name != b.name ? a.name < b.name : a.bucket < b.bucket;
    });
    return;
  }
  std::stable_sort(rows.begin(), rows.end(), [key](const TransferRow& a, const TransferRow& b) {
    return value(a, key) > value(b, key);
  });
}

std::string render_transfer_table(std::vector<TransferRow> rows,
                                  const TransferTableOptions& options) {
  if (rows.empty()) return "";
  sort_transfer_rows(rows, options.sort);
  const size_t max_name_width = std::max<size_t>(options.max_name_width, 4);
  const auto time = [&](double ns) { return format_time(ns, options.time_unit); };

  const std::vector<std::string> headers = {"Name",      "Size",    "# of Calls", "Total Bytes",
                                            "GPU total", "GPU avg", "Bandwidth"};
  size_t longest_name = 0;
  for (const TransferRow& row : rows)
    longest_name = std::max(longest_name, display_length(row.name));
  TableLayout layout;
  layout.add_column(name_column_width(longest_name, max_name_width));
  for (size_t i = 1; i < headers.size(); ++i) layout.add_column(kDefaultColumnWidth);

  std::string out = layout.separator();
  out += layout.line(headers);
  out += layout.separator();
  uint64_t calls = 0;
  uint64_t bytes = 0;
  uint64_t gpu_ns = 0;
  size_t printed = 0;
  for (const TransferRow& row : rows) {
    calls += row.count;
    bytes += row.bytes;
    gpu_ns += row.gpu_ns;
    if (options.row_limit != 0 && printed == options.row_limit) continue;
    ++printed;
    out += layout.line(
        {fit_name(row.name, max_name_width), std::string(size_bucket_label(row.bucket)),
         std::to_string(row.count), format_memory(static_cast<int64_t>(row.bytes)),
         time(static_cast<double>(row.gpu_ns)), time(row.avg_gpu_ns()), bandwidth(row)});
  }
  out += layout.separator();
  out +=
      fmt::format("Copies and sets: {} {}, {}, GPU time {}\n", calls, calls == 1 ? "call" : "calls",
                  format_memory(static_cast<int64_t>(bytes)), time(static_cast<double>(gpu_ns)));
  return out;
}

CellTable transfer_cells(std::vector<TransferRow> rows, const TransferTableOptions& options) {
  CellTable table;
  sort_transfer_rows(rows, options.sort);
  const auto time = [&](double ns) { return format_time(ns, options.time_unit); };
  table.titles = {"Name", "Size", "# of Calls", "Total Bytes", "GPU total", "GPU avg", "Bandwidth"};
  table.keys = {"name", "size", "calls", "bytes", "gpu_total_ns", "gpu_avg_ns", "bandwidth_gbps"};
  table.numeric = {false, false, true, true, true, true, true};
  uint64_t calls = 0, bytes = 0, gpu_ns = 0;
  size_t printed = 0;
  for (const TransferRow& row : rows) {
    calls += row.count;
    bytes += row.bytes;
    gpu_ns += row.gpu_ns;
    if (options.row_limit != 0 && printed == options.row_limit) continue;
    ++printed;
    table.display.push_back(
        {row.name, std::string(size_bucket_label(row.bucket)), std::to_string(row.count),
         format_memory(static_cast<int64_t>(row.bytes)), time(static_cast<double>(row.gpu_ns)),
         time(row.avg_gpu_ns()), bandwidth(row)});
    table.raw.push_back({row.name, std::string(size_bucket_label(row.bucket)),
                         std::to_string(row.count), std::to_string(row.bytes),
                         std::to_string(row.gpu_ns),
                         std::to_string(static_cast<int64_t>(row.avg_gpu_ns() + 0.5)),
                         row.gpu_ns ? fmt::format("{:.4f}", row.bandwidth_gbps()) : "0"});
  }
  table.footer.push_back(
      fmt::format("Copies and sets: {} {}, {}, GPU time {}", calls, calls == 1 ? "call" : "calls",
                  format_memory(static_cast<int64_t>(bytes)), time(static_cast<double>(gpu_ns))));
  return table;
}

}  // namespace gprof::analysis
