#include "tools/analysis/model/glob.h"

namespace gprof::analysis {

bool glob_match(std::string_view pattern, std::string_view text) {
  // Greedy with backtracking to the last '*': linear for the patterns people
  // type, never exponential.
  constexpr size_t kNone = std::string_view::npos;
  size_t p = 0;
  size_t t = 0;
  size_t star = kNone;
  size_t resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != kNone) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool glob_match_any(const std::vector<std::string>& patterns, std::string_view text) {
  for (const std::string& pattern : patterns)
    if (glob_match(pattern, text)) return true;
  return false;
}

}  // namespace gprof::analysis
