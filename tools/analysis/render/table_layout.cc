#include "tools/analysis/render/table_layout.h"

#include <algorithm>

#include "tools/analysis/render/format.h"

namespace gprof::analysis {
namespace {

constexpr size_t kSpacing = 2;

}  // namespace

std::string TableLayout::line(const std::vector<std::string>& cells) const {
  std::string out;
  for (size_t i = 0; i < widths_.size() && i < cells.size(); ++i) {
    const size_t length = display_length(cells[i]);
    if (length < widths_[i]) out.append(widths_[i] - length, ' ');
    out += cells[i];
    out.append(kSpacing, ' ');
  }
  out += '\n';
  return out;
}

std::string TableLayout::separator() const {
  std::string out;
  for (size_t width : widths_) {
    out.append(width, '-');
    out.append(kSpacing, ' ');
  }
  out += '\n';
  return out;
}

size_t name_column_width(size_t longest_name, size_t max_width) {
  return std::min(longest_name + 4, max_width);
}

// Cut, and marked "...", only when the name does not fit (torch marks names
// from max_width - 3 on, cut or not).
std::string fit_name(std::string_view name, size_t max_width) {
  if (display_length(name) > max_width)
    return single_line(display_prefix(name, max_width - 3)) + "...";
  return single_line(name);
}

}  // namespace gprof::analysis
