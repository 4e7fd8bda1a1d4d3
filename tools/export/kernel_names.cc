#include "tools/export/kernel_names.h"

#include <cctype>

namespace gprof::exporter {
namespace {

// Where the bracketed group that ends at `end - 1` (closing `close`) opens,
// counting nested pairs; npos when it never does.
size_t opening(std::string_view text, size_t end, char open, char close) {
  int depth = 0;
  for (size_t i = end; i-- > 0;) {
    if (text[i] == close) ++depth;
    if (text[i] == open && --depth == 0) return i;
  }
  return std::string_view::npos;
}

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

}  // namespace

std::string short_kernel_name(std::string_view demangled) {
  std::string_view name = demangled;
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  // Parameters first (they may hold '<'), then the template arguments.
  if (name.ends_with(')')) {
    const size_t open = opening(name, name.size(), '(', ')');
    if (open != std::string_view::npos) name = name.substr(0, open);
  }
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  if (name.ends_with('>')) {
    const size_t open = opening(name, name.size(), '<', '>');
    if (open != std::string_view::npos) name = name.substr(0, open);
  }
  size_t begin = name.size();
  while (begin > 0 && identifier_char(name[begin - 1])) --begin;
  if (begin == name.size()) return std::string(demangled);
  return std::string(name.substr(begin));
}

}  // namespace gprof::exporter
