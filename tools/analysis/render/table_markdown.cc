#include "tools/analysis/render/table_markdown.h"

#include <algorithm>
#include <string_view>

namespace gprof::analysis {
namespace {

// The name and group cells become code spans, the others are escaped.
// kNone for a column the line does not have.
constexpr size_t kNone = static_cast<size_t>(-1);

std::string markdown_line(const std::vector<std::string>& cells, size_t name_column,
                          size_t group_column) {
  std::string out = "|";
  for (size_t i = 0; i < cells.size(); ++i) {
    const bool code = i == name_column || i == group_column;
    out += " " + (code ? markdown_code(cells[i]) : escape_markdown(cells[i])) + " |";
  }
  return out + "\n";
}

}  // namespace

std::string escape_markdown(std::string_view text) {
  constexpr std::string_view kSpecial = "\\`*_[]<>|~&";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    // A line break would end the table row: a cell stays on one line.
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') {
      out += ' ';
      continue;
    }
    if (kSpecial.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string markdown_code(std::string_view text) {
  if (text.empty()) return "";
  std::string body;
  body.reserve(text.size());
  size_t run = 0;
  size_t longest_run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') {
      body += ' ';
    } else {
      if (c == '|') body += '\\';
      body += c;
    }
  }
  // A span that starts or ends with a backtick needs a space against its
  // fence, and one that starts and ends with a space loses one from each
  // side: padding both sides keeps the text as it is in both cases.
  const bool pad =
      body.front() == '`' || body.back() == '`' || (body.front() == ' ' && body.back() == ' ');
  const std::string fence(longest_run + 1, '`');
  return pad ? fence + " " + body + " " + fence : fence + body + fence;
}

void write_markdown_table(std::vector<Row> rows, const TableOptions& options,
                          const TextSink& write) {
  const TableSummary summary = summarize_table(rows, options);
  write_markdown_table(summary, table_row_cursor(std::move(rows), options), options, write);
}

void write_markdown_table(const TableSummary& summary, const RowCursor& next,
                          const TableOptions& options, const TextSink& write) {
  if (summary.rows == 0) return;
  const TableTotals& totals = summary.totals;
  const TableColumns& columns = summary.columns;
  const std::vector<std::string> headers = table_headers(columns, options);

  // The group column, when there is one, is the last.
  const size_t group_column = columns.grouped ? headers.size() - 1 : kNone;
  std::string head = markdown_line(headers, kNone, kNone);
  head += "|";
  for (size_t i = 0; i < headers.size(); ++i) head += i == 0 ? " :--- |" : " ---: |";
  head += "\n";
  write(head);
  for (Row row; next(row);)
    write(markdown_line(table_cells(row, columns, options, totals), 0, group_column));
  for (const std::string& line : table_footer(columns, options, totals)) write("\n" + line + "\n");
}

std::string render_markdown_table(std::vector<Row> rows, const TableOptions& options) {
  return collect_text(
      [&](const TextSink& write) { write_markdown_table(std::move(rows), options, write); });
}

}  // namespace gprof::analysis
