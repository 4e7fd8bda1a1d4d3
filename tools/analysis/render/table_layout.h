// Column layout of torch's _build_table, shared by the tables: each cell
// right-aligned in its column ("{: >W}" in Python) and followed by two
// spaces; widths are counted in characters, not bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gprof::analysis {

inline constexpr size_t kDefaultColumnWidth = 12;

class TableLayout {
 public:
  void add_column(size_t width) { widths_.push_back(width); }

  // One line of cells, never cut: a longer cell overflows its column.
  std::string line(const std::vector<std::string>& cells) const;
  // "-----  ------  " under each column.
  std::string separator() const;

 private:
  std::vector<size_t> widths_;
};

// The width of a name column: min(longest name + 4, max_width).
size_t name_column_width(size_t longest_name, size_t max_width);

// `name` cut to max_width - 3 characters plus "..." when it has that many or
// more (torch's max_name_column_width rule).
std::string fit_name(std::string_view name, size_t max_width);

}  // namespace gprof::analysis
