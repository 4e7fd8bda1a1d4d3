#include "tools/comparison/render/text_grid.h"

#include <algorithm>

#include "tools/analysis/render/format.h"

namespace gprof::comparison {
namespace {

constexpr size_t kGap = 2;

std::string pad(const std::string& text, size_t width, bool left) {
  const size_t length = analysis::display_length(text);
  const std::string fill(width > length ? width - length : 0, ' ');
  return left ? text + fill : fill + text;
}

std::string trimmed(std::string line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

}  // namespace

std::string render_grid(const TextGrid& grid) {
  const size_t columns = grid.headers.size();
  std::vector<size_t> widths(columns);
  for (size_t c = 0; c < columns; ++c) {
    widths[c] = analysis::display_length(grid.headers[c]);
    for (const auto& row : grid.rows)
      widths[c] = std::max(widths[c], analysis::display_length(row[c]));
  }
  // A title wider than its columns widens the last of them.
  size_t first = 0;
  for (const ColumnGroup& group : grid.groups) {
    size_t span = (group.columns - 1) * kGap;
    for (size_t c = first; c < first + group.columns; ++c) span += widths[c];
    const size_t title = analysis::display_length(group.title);
    if (title > span) widths[first + group.columns - 1] += title - span;
    first += group.columns;
  }

  std::string out;
  if (!grid.groups.empty()) {
    std::string line;
    first = 0;
    for (const ColumnGroup& group : grid.groups) {
      size_t span = (group.columns - 1) * kGap;
      for (size_t c = first; c < first + group.columns; ++c) span += widths[c];
      const size_t title = analysis::display_length(group.title);
      const size_t before = (span - title) / 2;
      line += std::string(before, ' ') + group.title + std::string(span - title - before, ' ');
      line += std::string(kGap, ' ');
      first += group.columns;
    }
    out += trimmed(line);
  }
  std::string line;
  size_t total = 0;
  for (size_t c = 0; c < columns; ++c) {
    line += pad(grid.headers[c], widths[c], grid.left[c]) + std::string(kGap, ' ');
    total += widths[c] + (c + 1 < columns ? kGap : 0);
  }
  const std::string rule = std::string(total, '-') + "\n";
  out += trimmed(line) + rule;
  for (const auto& row : grid.rows) {
    line.clear();
    for (size_t c = 0; c < columns; ++c)
      line += pad(row[c], widths[c], grid.left[c]) + std::string(kGap, ' ');
    out += trimmed(line);
  }
  return out + rule;
}

}  // namespace gprof::comparison
