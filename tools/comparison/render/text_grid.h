// Aligned plain-text columns for the diff's tables: each column as wide as
// its widest cell, two spaces between columns, an optional title line
// centred over groups of columns (a metric's Base, New, Change, %).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gprof::comparison {

struct ColumnGroup {
  std::string title;  // centred over the columns; empty: none
  size_t columns = 1;
};

struct TextGrid {
  std::vector<ColumnGroup> groups;  // cover the columns left to right; empty: no title line
  std::vector<std::string> headers;
  std::vector<bool> left;  // per column: left-aligned (else right-aligned)
  std::vector<std::vector<std::string>> rows;
};

// Title line (when groups are given), header line, a line of dashes, the
// rows, and a closing line of dashes; lines end in '\n' without trailing
// spaces.
std::string render_grid(const TextGrid& grid);

}  // namespace gprof::comparison
