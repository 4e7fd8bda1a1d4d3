#include "tools/analysis/table_markdown.h"

#include <string_view>

namespace gprof::analysis {
namespace {

std::string markdown_line(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const std::string& cell : cells) out += " " + escape_markdown(cell) + " |";
  return out + "\n";
}

}  // namespace

std::string escape_markdown(std::string_view text) {
  constexpr std::string_view kSpecial = "\\`*_[]<>|~&";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    // A line break would end the table row: a cell stays on one line.
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    if (kSpecial.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string render_markdown_table(std::vector<Row> rows, const TableOptions& options) {
  if (rows.empty()) return "";
  const TableTotals totals = effective_totals(rows, options);
  const TableColumns columns = table_columns(rows, options);
  rows = table_rows(std::move(rows), options);
  const std::vector<std::string> headers = table_headers(columns, options);

  std::string out = markdown_line(headers);
  out += "|";
  for (size_t i = 0; i < headers.size(); ++i) out += i == 0 ? " :--- |" : " ---: |";
  out += "\n";
  for (const Row& row : rows) out += markdown_line(table_cells(row, columns, options, totals));
  for (const std::string& line : table_footer(columns, options, totals)) out += "\n" + line + "\n";
  return out;
}

}  // namespace gprof::analysis
