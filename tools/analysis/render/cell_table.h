// The launches and memory views as cells, for their md, csv and json forms
// (the key-averages views have their own, table_markdown.h / table_csv.h):
// titles and display cells as the text table prints them, and machine keys
// with raw values (times in ns, sizes in bytes) for CSV and JSON.
#pragma once

#include <string>
#include <vector>

namespace gprof::analysis {

struct CellTable {
  std::vector<std::string> titles;                // as the text table: "API avg", "GPU total"
  std::vector<std::string> keys;                  // for CSV and JSON: "api_avg_ns", "gpu_total_ns"
  std::vector<bool> numeric;                      // per column: raw values are numbers
  std::vector<std::vector<std::string>> display;  // per row: the text table's cells
  std::vector<std::vector<std::string>> raw;      // per row: the machine values
  std::vector<std::string> footer;                // lines under the table
};

// Name a code span, other cells escaped; footer lines as paragraphs. With
// no rows, the header (and footer) still.
std::string render_cells_markdown(const CellTable& table);
// Header of keys, one line per row of raw values (names quoted as CSV
// needs); the header alone with no rows.
std::string render_cells_csv(const CellTable& table);

}  // namespace gprof::analysis
