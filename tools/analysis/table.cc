#include "tools/analysis/table.h"

#include <algorithm>

#include "tools/analysis/table_layout.h"

namespace gprof::analysis {
namespace {

// torch's max_shapes_column_width.
constexpr size_t kMaxGroupWidth = 80;

}  // namespace

TableTotals table_totals(const std::vector<Row>& rows) {
  TableTotals totals;
  for (const Row& row : rows) {
    totals.self_cpu_ns += static_cast<double>(row.self_cpu_ns);
    if (row.kind == RowKind::kGpu) totals.self_device_ns += static_cast<double>(row.self_device_ns);
  }
  return totals;
}

std::string render_table(std::vector<Row> rows, const TableOptions& options) {
  if (rows.empty()) return "";
  if (options.sort) sort_rows(rows, *options.sort);
  const auto time = [&](double ns) { return format_time(ns, options.time_unit); };
  const std::string& device = options.device_name;
  const size_t max_name_width = std::max<size_t>(options.max_name_width, 4);
  const TableTotals totals = options.totals ? *options.totals : table_totals(rows);

  bool has_device_time = false;
  bool has_device_mem = false;
  size_t longest_name = 0;
  size_t longest_group = 0;
  for (const Row& row : rows) {
    has_device_time = has_device_time || row.self_device_ns > 0;
    has_device_mem = has_device_mem || row.self_device_mem > 0;
    longest_name = std::max(longest_name, display_length(row.name));
    longest_group = std::max(longest_group, display_length(row.group));
  }
  const bool grouped = !options.group_title.empty();

  std::vector<std::string> headers = {"Name",        "Self CPU %", "Self CPU",
                                      "CPU total %", "CPU total",  "CPU time avg"};
  if (has_device_time) {
    headers.insert(headers.end(), {"Self " + device, "Self " + device + " %", device + " total",
                                   device + " time avg"});
  }
  if (options.profile_memory) {
    headers.insert(headers.end(), {"CPU Mem", "Self CPU Mem"});
    if (has_device_mem) headers.insert(headers.end(), {device + " Mem", "Self " + device + " Mem"});
  }
  headers.push_back("# of Calls");
  if (grouped) headers.push_back(options.group_title);

  TableLayout layout;
  layout.add_column(name_column_width(longest_name, max_name_width));
  const size_t fixed_columns = headers.size() - (grouped ? 1 : 0);
  for (size_t i = 1; i < fixed_columns; ++i) layout.add_column(kDefaultColumnWidth);
  const size_t group_width =
      std::min(std::max(longest_group + 4, display_length(options.group_title)), kMaxGroupWidth);
  if (grouped) layout.add_column(group_width);

  // torch works in microseconds; shares are computed on the same scale.
  const auto us = [](double ns) { return ns / 1000.0; };
  std::string out = layout.separator();
  out += layout.line(headers);
  out += layout.separator();
  size_t printed = 0;
  for (const Row& row : rows) {
    if (options.row_limit != 0 && printed == options.row_limit) break;
    ++printed;
    const std::string name = fit_name(row.name, max_name_width);
    const auto self_cpu = static_cast<double>(row.self_cpu_ns);
    const auto cpu_total = static_cast<double>(row.cpu_total_ns);
    std::vector<std::string> cells = {
        name,
        format_time_share(us(self_cpu), us(totals.self_cpu_ns)),
        time(self_cpu),
        format_time_share(us(cpu_total), us(totals.self_cpu_ns)),
        time(cpu_total),
        time(row.cpu_avg_ns()),
    };
    if (has_device_time) {
      const auto self_device = static_cast<double>(row.self_device_ns);
      cells.insert(
          cells.end(),
          {time(self_device), format_time_share(us(self_device), us(totals.self_device_ns)),
           time(static_cast<double>(row.device_total_ns)), time(row.device_avg_ns())});
    }
    if (options.profile_memory) {
      cells.insert(cells.end(), {format_memory(row.cpu_mem), format_memory(row.self_cpu_mem)});
      if (has_device_mem) {
        cells.insert(cells.end(),
                     {format_memory(row.device_mem), format_memory(row.self_device_mem)});
      }
    }
    cells.push_back(std::to_string(row.count));
    if (grouped) cells.emplace_back(display_prefix(row.group, group_width));
    out += layout.line(cells);
  }
  out += layout.separator();
  out += "Self CPU time total: " + time(totals.self_cpu_ns) + "\n";
  if (has_device_time)
    out += "Self " + device + " time total: " + time(totals.self_device_ns) + "\n";
  return out;
}

}  // namespace gprof::analysis
