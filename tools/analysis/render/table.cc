#include "tools/analysis/render/table.h"

#include <algorithm>
#include <memory>

#include "tools/analysis/render/short_name.h"
#include "tools/analysis/render/table_layout.h"

namespace gprof::analysis {
namespace {

// torch's max_shapes_column_width.
constexpr size_t kMaxGroupWidth = 80;

// torch works in microseconds; shares are computed on the same scale.
double us(double ns) {
  return ns / 1000.0;
}

}  // namespace

void RowTotals::add(const Row& row) {
  every.self_cpu_ns += static_cast<double>(row.self_cpu_ns);
  if (row.kind == RowKind::kGpu)
    every.self_device_ns += static_cast<double>(row.self_device_ns);
  else
    top_level_cpu_ns += static_cast<double>(row.cpu_total_ns);
}

TableTotals RowTotals::totals(bool top_level_only) const {
  if (!top_level_only) return every;
  return TableTotals{top_level_cpu_ns, every.self_device_ns};
}

TableTotals table_totals(const std::vector<Row>& rows) {
  RowTotals totals;
  for (const Row& row : rows) totals.add(row);
  return totals.totals(false);
}

TableTotals effective_totals(const std::vector<Row>& rows, const TableOptions& options) {
  return options.totals ? *options.totals : table_totals(rows);
}

TableSummary::TableSummary(const TableOptions& options) {
  columns.cpu_time = options.cpu_columns;
  columns.cpu_mem = options.profile_memory;
  columns.grouped = !options.group_title.empty();
}

void TableSummary::add(const Row& row, const TableOptions& options) {
  ++rows;
  columns.device_time = columns.device_time || row.self_device_ns > 0;
  columns.issued_time = columns.issued_time || (options.issued_columns && row.issued_device_ns > 0);
  // torch's has_device_mem.
  columns.device_mem = columns.device_mem || (options.profile_memory && row.self_device_mem > 0);
  longest_name = std::max(longest_name, display_length(display_name(row, options)));
  longest_group = std::max(longest_group, display_length(row.group));
}

TableSummary summarize_table(const std::vector<Row>& rows, const TableOptions& options) {
  TableSummary summary(options);
  for (const Row& row : rows) summary.add(row, options);
  summary.totals = effective_totals(rows, options);
  return summary;
}

RowCursor table_row_cursor(std::vector<Row> rows, const TableOptions& options) {
  auto sorted = std::make_shared<std::vector<Row>>(table_rows(std::move(rows), options));
  return [sorted, next = size_t{0}](Row& out) mutable {
    if (next == sorted->size()) return false;
    out = std::move((*sorted)[next++]);
    return true;
  };
}

std::vector<Row> table_rows(std::vector<Row> rows, const TableOptions& options) {
  if (options.sort)
    sort_rows(rows, *options.sort, options.row_limit);
  else if (options.row_limit != 0 && rows.size() > options.row_limit)
    rows.resize(options.row_limit);
  return rows;
}

std::vector<std::string> table_headers(const TableColumns& columns, const TableOptions& options) {
  const std::string& device = options.device_name;
  std::vector<std::string> headers = {"Name"};
  if (columns.cpu_time)
    headers.insert(headers.end(),
                   {"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"});
  if (columns.device_time) {
    headers.insert(headers.end(), {"Self " + device, "Self " + device + " %", device + " total",
                                   device + " time avg"});
  }
  if (columns.issued_time) headers.insert(headers.end(), {"GPU time", "GPU time avg"});
  if (columns.cpu_mem) headers.insert(headers.end(), {"CPU Mem", "Self CPU Mem"});
  if (columns.device_mem)
    headers.insert(headers.end(), {device + " Mem", "Self " + device + " Mem"});
  headers.push_back("# of Calls");
  if (columns.grouped) headers.push_back(options.group_title);
  return headers;
}

std::string display_name(const Row& row, const TableOptions& options) {
  if (options.full_names || row.kind != RowKind::kGpu || row.gpu_kind != GpuKind::kKernel)
    return row.name;
  return readable_kernel_name(row.name);
}

std::vector<std::string> table_cells(const Row& row, const TableColumns& columns,
                                     const TableOptions& options, const TableTotals& totals) {
  const auto time = [&](double ns) { return format_time(ns, options.time_unit); };
  const auto self_cpu = static_cast<double>(row.self_cpu_ns);
  const auto cpu_total = static_cast<double>(row.cpu_total_ns);
  std::vector<std::string> cells = {display_name(row, options)};
  if (columns.cpu_time)
    cells.insert(cells.end(),
                 {format_time_share(us(self_cpu), us(totals.self_cpu_ns)), time(self_cpu),
                  format_time_share(us(cpu_total), us(totals.self_cpu_ns)), time(cpu_total),
                  time(row.cpu_avg_ns())});
  if (columns.device_time) {
    const auto self_device = static_cast<double>(row.self_device_ns);
    cells.insert(cells.end(),
                 {time(self_device), format_time_share(us(self_device), us(totals.self_device_ns)),
                  time(static_cast<double>(row.device_total_ns)), time(row.device_avg_ns())});
  }
  if (columns.issued_time)
    cells.insert(cells.end(),
                 {time(static_cast<double>(row.issued_device_ns)), time(row.issued_avg_ns())});
  if (columns.cpu_mem)
    cells.insert(cells.end(), {format_memory(row.cpu_mem), format_memory(row.self_cpu_mem)});
  if (columns.device_mem)
    cells.insert(cells.end(), {format_memory(row.device_mem), format_memory(row.self_device_mem)});
  cells.push_back(std::to_string(row.count));
  if (columns.grouped) cells.push_back(row.group);
  return cells;
}

std::vector<std::string> table_footer(const TableColumns& columns, const TableOptions& options,
                                      const TableTotals& totals) {
  std::vector<std::string> lines = {"Self CPU time total: " +
                                    format_time(totals.self_cpu_ns, options.time_unit)};
  if (columns.device_time) {
    lines.push_back("Self " + options.device_name +
                    " time total: " + format_time(totals.self_device_ns, options.time_unit));
  }
  return lines;
}

void write_table(std::vector<Row> rows, const TableOptions& options, const TextSink& write) {
  const TableSummary summary = summarize_table(rows, options);
  write_table(summary, table_row_cursor(std::move(rows), options), options, write);
}

void write_table(const TableSummary& summary, const RowCursor& next, const TableOptions& options,
                 const TextSink& write) {
  if (summary.rows == 0) return;
  const size_t max_name_width = std::max<size_t>(options.max_name_width, 4);
  const TableTotals& totals = summary.totals;
  const TableColumns& columns = summary.columns;
  const std::vector<std::string> headers = table_headers(columns, options);

  TableLayout layout;
  layout.add_column(name_column_width(summary.longest_name, max_name_width));
  const size_t fixed_columns = headers.size() - (columns.grouped ? 1 : 0);
  for (size_t i = 1; i < fixed_columns; ++i) layout.add_column(kDefaultColumnWidth);
  const size_t group_width = std::min(
      std::max(summary.longest_group + 4, display_length(options.group_title)), kMaxGroupWidth);
  if (columns.grouped) layout.add_column(group_width);

  write(layout.separator());
  write(layout.line(headers));
  write(layout.separator());
  for (Row row; next(row);) {
    std::vector<std::string> cells = table_cells(row, columns, options, totals);
    cells.front() = fit_name(cells.front(), max_name_width);
    if (columns.grouped) cells.back() = std::string(display_prefix(row.group, group_width));
    write(layout.line(cells));
  }
  write(layout.separator());
  for (const std::string& line : table_footer(columns, options, totals)) write(line + "\n");
}

std::string render_table(std::vector<Row> rows, const TableOptions& options) {
  return collect_text([&](const TextSink& write) { write_table(std::move(rows), options, write); });
}

}  // namespace gprof::analysis
