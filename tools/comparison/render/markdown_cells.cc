#include "tools/comparison/render/markdown_cells.h"

#include "tools/analysis/render/format.h"
#include "tools/analysis/render/short_name.h"
#include "tools/analysis/render/table_markdown.h"

namespace gprof::comparison {
namespace {

std::string cut(const std::string& name, size_t width) {
  if (width == 0 || analysis::display_length(name) <= width) return name;
  return std::string(analysis::display_prefix(name, width - 1)) + "…";
}

}  // namespace

std::string markdown_line(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const std::string& cell : cells) out += " " + cell + " |";
  return out + "\n";
}

std::string markdown_header(const std::vector<std::string>& titles, size_t left) {
  std::string align = "|";
  for (size_t i = 0; i < titles.size(); ++i) align += i < left ? " :--- |" : " ---: |";
  return markdown_line(titles) + align + "\n";
}

std::string table_name(const RowKey& key, bool full_names) {
  if (full_names || key.kind != "kernel") return key.name;
  return analysis::readable_kernel_name(key.name);
}

std::string markdown_name(const RowKey& key, size_t width, bool full_names) {
  std::string out = analysis::markdown_code(cut(table_name(key, full_names), width));
  if (!key.group.empty()) out += " \\[" + analysis::markdown_code(key.group) + "\\]";
  return out;
}

std::string markdown_row(const RowKey& key, size_t width, bool full_names) {
  return analysis::escape_markdown(key.kind) + " " + markdown_name(key, width, full_names);
}

}  // namespace gprof::comparison
