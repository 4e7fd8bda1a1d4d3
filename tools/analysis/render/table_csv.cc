#include "tools/analysis/render/table_csv.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

namespace gprof::analysis {
namespace {

std::string share(uint64_t part, double total) {
  if (total == 0) return "";
  return fmt::format("{:.4f}", 100.0 * static_cast<double>(part) / total);
}

// As the table prints nanoseconds (--time-unit ns): a tie goes to the even
// neighbour, so that both say 2594 for 2594.5.
std::string rounded(double ns) {
  return fmt::format("{:.0f}", ns);
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i != 0) out += ',';
    out += csv_field(fields[i]);
  }
  return out + "\n";
}

}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void write_csv_table(std::vector<Row> rows, const TableOptions& options, const TextSink& write) {
  const TableSummary summary = summarize_table(rows, options);
  write_csv_table(summary, table_row_cursor(std::move(rows), options), options, write);
}

void write_csv_table(const TableSummary& summary, const RowCursor& next,
                     const TableOptions& options, const TextSink& write) {
  const TableTotals& totals = summary.totals;
  const TableColumns& columns = summary.columns;
  const std::string& device = options.device_name;

  std::vector<std::string> headers = {"Name",        "Self CPU %",     "Self CPU (ns)",
                                      "CPU total %", "CPU total (ns)", "CPU time avg (ns)"};
  if (columns.device_time) {
    headers.insert(headers.end(), {"Self " + device + " (ns)", "Self " + device + " %",
                                   device + " total (ns)", device + " time avg (ns)"});
  }
  if (columns.issued_time) headers.insert(headers.end(), {"GPU time (ns)", "GPU time avg (ns)"});
  if (columns.cpu_mem) headers.insert(headers.end(), {"CPU Mem (B)", "Self CPU Mem (B)"});
  if (columns.device_mem)
    headers.insert(headers.end(), {device + " Mem (B)", "Self " + device + " Mem (B)"});
  headers.push_back("# of Calls");
  if (columns.grouped) headers.push_back(options.group_title);

  write(csv_line(headers));
  for (Row row; next(row);) {
    std::vector<std::string> fields = {
        row.name,
        share(row.self_cpu_ns, totals.self_cpu_ns),
        std::to_string(row.self_cpu_ns),
        share(row.cpu_total_ns, totals.self_cpu_ns),
        std::to_string(row.cpu_total_ns),
        rounded(row.cpu_avg_ns()),
    };
    if (columns.device_time) {
      fields.insert(
          fields.end(),
          {std::to_string(row.self_device_ns), share(row.self_device_ns, totals.self_device_ns),
           std::to_string(row.device_total_ns), rounded(row.device_avg_ns())});
    }
    if (columns.issued_time) {
      fields.insert(fields.end(),
                    {std::to_string(row.issued_device_ns), rounded(row.issued_avg_ns())});
    }
    if (columns.cpu_mem)
      fields.insert(fields.end(), {std::to_string(row.cpu_mem), std::to_string(row.self_cpu_mem)});
    if (columns.device_mem) {
      fields.insert(fields.end(),
                    {std::to_string(row.device_mem), std::to_string(row.self_device_mem)});
    }
    fields.push_back(std::to_string(row.count));
    if (columns.grouped) fields.push_back(row.group);
    write(csv_line(fields));
  }
}

std::string render_csv_table(std::vector<Row> rows, const TableOptions& options) {
  return collect_text(
      [&](const TextSink& write) { write_csv_table(std::move(rows), options, write); });
}

}  // namespace gprof::analysis
