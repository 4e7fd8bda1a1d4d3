#include "tools/analysis/render/cell_table.h"

#include "tools/analysis/render/table_csv.h"
#include "tools/analysis/render/table_markdown.h"

namespace gprof::analysis {

// No rows (a CPU-only file, a --range without work): the header alone, as
// the key-averages views print it, so that a script reading the columns
// finds them.
std::string render_cells_markdown(const CellTable& table) {
  std::string out = "|";
  for (const std::string& title : table.titles) out += " " + escape_markdown(title) + " |";
  out += "\n|";
  for (size_t i = 0; i < table.titles.size(); ++i) out += i == 0 ? " :--- |" : " ---: |";
  out += "\n";
  for (const std::vector<std::string>& row : table.display) {
    out += "|";
    for (size_t i = 0; i < row.size(); ++i)
      out += " " + (i == 0 ? markdown_code(row[i]) : escape_markdown(row[i])) + " |";
    out += "\n";
  }
  for (const std::string& line : table.footer) out += "\n" + escape_markdown(line) + "\n";
  return out;
}

std::string render_cells_csv(const CellTable& table) {
  std::string out;
  for (size_t i = 0; i < table.keys.size(); ++i) out += (i ? "," : "") + csv_field(table.keys[i]);
  out += "\n";
  for (const std::vector<std::string>& row : table.raw) {
    for (size_t i = 0; i < row.size(); ++i)
      out += (i ? "," : "") + (table.numeric[i] ? row[i] : csv_field(row[i]));
    out += "\n";
  }
  return out;
}

}  // namespace gprof::analysis
