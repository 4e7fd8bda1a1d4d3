#include "tools/analysis/render/short_name.h"

#include <string>
#include <vector>

#include "tools/analysis/render/format.h"

namespace gprof::analysis {
namespace {

constexpr std::string_view kCut = "…";

bool opens(char c) {
  return c == '<' || c == '(' || c == '{' || c == '[';
}
bool closes(char c) {
  return c == '>' || c == ')' || c == '}' || c == ']';
}
char closer_of(char c) {
  return c == '<' ? '>' : c == '(' ? ')' : c == '{' ? '}' : ']';
}

bool balanced(std::string_view s) {
  std::string stack;
  for (char c : s) {
    if (opens(c)) {
      stack.push_back(closer_of(c));
    } else if (closes(c)) {
      if (stack.empty() || stack.back() != c) return false;
      stack.pop_back();
    }
  }
  return stack.empty();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The bracket that closes the one at `open` (the name is balanced).
size_t match(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (opens(s[i])) ++depth;
    if (closes(s[i]) && --depth == 0) return i;
  }
  return s.size() - 1;
}

// `s` cut at each `separator` outside brackets.
std::vector<std::string_view> split_outside(std::string_view s, std::string_view separator) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (opens(s[i])) {
      ++depth;
    } else if (closes(s[i])) {
      --depth;
    } else if (depth == 0 && s.substr(i).starts_with(separator)) {
      parts.push_back(s.substr(start, i - start));
      i += separator.size() - 1;
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

// A namespace (or a class used as one): dropped when something follows.
bool scope_only(std::string_view segment) {
  if (segment == "(anonymous namespace)") return true;
  if (segment.empty()) return false;
  for (char c : segment)
    if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      return false;
  return true;
}

std::string qualified(std::string_view text, int depth);

// One segment of a qualified name: its name, its template arguments (shown at
// the first level only), its parameters ("(…)", or none after a function a
// lambda was written in).
std::string segment_text(std::string_view segment, int depth, bool drop_parameters) {
  std::string out;
  for (size_t i = 0; i < segment.size();) {
    const char c = segment[i];
    if (c == '<' || c == '(') {
      const size_t end = match(segment, i);
      if (c == '(' && i == 0) {  // a bracketed name, not a parameter list
        out.append(segment.substr(i, end + 1 - i));
      } else if (c == '<' && depth == 0) {
        out += '<';
        const std::string_view inner = segment.substr(i + 1, end - i - 1);
        bool first = true;
        for (std::string_view argument : split_outside(inner, ",")) {
          if (!first) out += ", ";
          first = false;
          out += qualified(argument, depth + 1);
        }
        out += '>';
      } else if (c == '<') {
        out += '<';
        out += kCut;
        out += '>';
      } else if (!drop_parameters) {
        out += '(';
        out += kCut;
        out += ')';
      }
      i = end + 1;
      continue;
    }
    out += c;
    ++i;
  }
  std::string_view kept = trim(out);
  if (drop_parameters && kept.ends_with(" const")) kept.remove_suffix(6);
  return std::string(trim(kept));
}

std::string qualified(std::string_view text, int depth) {
  const std::vector<std::string_view> segments = split_outside(trim(text), "::");
  size_t first = 0;
  while (first + 1 < segments.size() && scope_only(trim(segments[first]))) ++first;
  const bool more = first + 1 < segments.size();
  std::string out = segment_text(trim(segments[first]), depth, more);
  if (!more) return out;
  for (size_t i = first + 1; i < segments.size(); ++i) {
    if (trim(segments[i]).starts_with("{lambda")) return out + "::{lambda}";
  }
  return out + "::" + segment_text(trim(segments.back()), depth + 1, true);
}

// Whether `name` (without "void ") starts as a C++ name does: a qualified
// identifier up to its first bracket. Not "Memcpy HtoD (Pageable -> Device)"
// nor "<unknown kernel>", which are gprof's own names.
bool looks_like_cpp(std::string_view name) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  size_t length = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name.substr(i).starts_with(kAnonymous)) {
      i += kAnonymous.size() - 1;
      continue;
    }
    const char c = name[i];
    if (c == '<' || c == '(') break;
    if (!(c == '_' || c == ':' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
          (c >= 'A' && c <= 'Z')))
      return false;
    ++length;
  }
  return length > 0;
}

}  // namespace

std::string readable_kernel_name(std::string_view demangled) {
  if (display_length(demangled) <= kLongKernelName) return std::string(demangled);
  return short_kernel_name(demangled);
}

std::string short_kernel_name(std::string_view demangled) {
  if (demangled.find_first_of("<(:") == std::string_view::npos || !balanced(demangled))
    return std::string(demangled);
  std::string_view name = demangled;
  if (name.starts_with("void ")) name.remove_prefix(5);
  if (!looks_like_cpp(name)) return std::string(demangled);
  // The parameter list: the bracketed group the name ends with.
  if (name.ends_with(')')) {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (closes(name[i])) ++depth;
      if (opens(name[i]) && --depth == 0) {
        if (i > 0) name = name.substr(0, i);
        break;
      }
    }
  }
  std::string out = qualified(name, 0);
  return out.empty() ? std::string(demangled) : out;
}

}  // namespace gprof::analysis
