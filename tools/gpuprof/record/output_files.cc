#include "tools/gpuprof/record/output_files.h"

#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <memory>
#include <regex>

namespace gprof::cli {
namespace {

// collector/process/config.h's Config::kMaxPattern, less its NUL: a longer pattern is
// ignored by the shim.
constexpr size_t kMaxPattern = 511;
// collector/output/output_path.cc's limit on a %q{VAR} name.
constexpr size_t kMaxVariable = 255;

// One '/'-separated part of a pattern, as a regular expression, and whether it
// holds a directive other than %% (if not, `literal` is the name itself).
struct Component {
  std::string regex;
  std::string literal;
  bool wildcard = false;
};

std::string escape_regex(char c) {
  static constexpr std::string_view kSpecial = R"(\^$.|?*+()[]{})";
  return kSpecial.find(c) == std::string_view::npos ? std::string(1, c) : std::string{'\\', c};
}

// Assumes a pattern that check_output_pattern accepted.
Component parse_component(std::string_view text) {
  Component c;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%' || i + 1 >= text.size()) {
      c.regex += escape_regex(text[i]);
      c.literal += text[i];
      continue;
    }
    const char directive = text[++i];
    switch (directive) {
      case '%':
        c.regex += escape_regex('%');
        c.literal += '%';
        continue;
      case 'p':
        c.regex += "[0-9]+";
        break;
      case 't':  // collector/output/process_info.cc: strftime "%Y%m%dT%H%M%S"
        c.regex += "[0-9]{8}T[0-9]{6}";
        break;
      case 'q':
        i = std::min(text.find('}', i), text.size());  // always there: the name has no '/'
        c.regex += "[^/]*";
        break;
      default:  // %h, %r: whatever the process saw
        c.regex += "[^/]*";
        break;
    }
    c.wildcard = true;
  }
  return c;
}

std::vector<std::string_view> split_path(std::string_view pattern) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  while (begin <= pattern.size()) {
    size_t end = pattern.find('/', begin);
    if (end == std::string_view::npos) end = pattern.size();
    if (end > begin) parts.push_back(pattern.substr(begin, end - begin));
    begin = end + 1;
  }
  return parts;
}

// Entries of `dir` (a prefix ending in '/', or "" for the current directory)
// whose names match.
std::vector<std::string> list_matching(const std::string& dir, const std::regex& re) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.empty() ? "." : dir.c_str()), closedir);
  if (!d) return names;
  while (const dirent* entry = readdir(d.get())) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (std::regex_match(entry->d_name, re)) names.emplace_back(name);
  }
  return names;
}

}  // namespace

std::string check_output_pattern(std::string_view pattern) {
  if (pattern.empty()) return "the output pattern is empty";
  if (pattern.size() > kMaxPattern)
    return fmt::format("the output pattern is longer than {} bytes", kMaxPattern);
  if (pattern.back() == '/') return "the output pattern must end in a file name, not '/'";
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    if (++i == pattern.size()) return "the output pattern ends in a lone '%' (write %% for '%')";
    switch (pattern[i]) {
      case 'p':
      case 'h':
      case 'r':
      case 't':
      case '%':
        break;
      case 'q': {
        const size_t close = pattern.find('}', i);
        if (i + 1 >= pattern.size() || pattern[i + 1] != '{' || close == std::string_view::npos)
          return "%q must be followed by {VARIABLE}";
        const size_t length = close - (i + 2);
        const std::string_view name = pattern.substr(i + 2, length);
        if (name.empty() || name.size() > kMaxVariable || name.find('/') != name.npos)
          return fmt::format("%q{{...}} needs a variable name of 1 to {} characters, no '/'",
                             kMaxVariable);
        i = close;
        break;
      }
      default:
        return fmt::format(
            "unknown directive '%{}' in the output pattern (known: %p %h %r %t "
            "%q{{VAR}} %%)",
            pattern[i]);
    }
  }
  return {};
}

std::string absolute_pattern(std::string_view pattern, std::string_view cwd) {
  if (pattern.starts_with('/')) return std::string(pattern);
  std::string out;
  for (const char c : cwd) out += c == '%' ? std::string("%%") : std::string(1, c);
  if (!out.ends_with('/')) out += '/';
  out += pattern;
  return out;
}

FileTimes match_output_files(std::string_view pattern) {
  // Directories reached so far, each a prefix ending in '/' ("" is the
  // current directory). Literal parts are followed without listing, so a
  // directory that cannot be read on the way is no obstacle.
  std::vector<std::string> dirs{pattern.starts_with('/') ? "/" : ""};
  const std::vector<std::string_view> parts = split_path(pattern);
  FileTimes files;
  for (size_t i = 0; i < parts.size() && !dirs.empty(); ++i) {
    const Component component = parse_component(parts[i]);
    const bool last = i + 1 == parts.size();
    std::vector<std::string> next;
    if (!last && !component.wildcard) {
      for (const std::string& dir : dirs) next.push_back(dir + component.literal + '/');
      dirs = std::move(next);
      continue;
    }
    const std::regex re(last ? component.regex + R"((\.[0-9]+)?)" : component.regex);
    for (const std::string& dir : dirs) {
      for (const std::string& name : list_matching(dir, re)) {
        const std::string path = dir + name;
        struct stat info {};
        // lstat: the shim opens with O_NOFOLLOW, so it never wrote through a link.
        if (lstat(path.c_str(), &info) != 0) continue;
        if (last && S_ISREG(info.st_mode)) files.emplace(path, info.st_mtim);
        if (!last && S_ISDIR(info.st_mode)) next.push_back(path + '/');
      }
    }
    dirs = std::move(next);
  }
  return files;
}

std::vector<std::string> written_between(const FileTimes& before, const FileTimes& after) {
  std::vector<std::string> written;
  for (const auto& [path, mtime] : after) {
    const auto old = before.find(path);
    if (old == before.end() || old->second.tv_sec != mtime.tv_sec ||
        old->second.tv_nsec != mtime.tv_nsec)
      written.push_back(path);
  }
  return written;
}

}  // namespace gprof::cli
