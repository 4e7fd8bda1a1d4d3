#include "tools/gpuprof/cli/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gprof::cli {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Optimal string alignment distance: insertions, deletions, substitutions
// and swaps of adjacent characters.
size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> closest(std::string_view typed,
                                 const std::vector<std::string>& candidates) {
  const std::string want = lower(typed);
  if (want.empty()) return {};
  // A third of the word may be wrong, one or two letters of a short one.
  const size_t allowed = std::max<size_t>(1, std::min<size_t>(3, want.size() / 3));
  size_t best = allowed + 1;
  std::vector<std::string> out;
  for (const std::string& candidate : candidates) {
    const std::string have = lower(candidate);
    if (have == want) continue;
    size_t d = distance(want, have);
    // "self_cuda" for "self_cuda_time_total": a prefix is as good as a typo.
    if (want.size() >= 3 && have.starts_with(want)) d = std::min(d, allowed);
    if (d < best) {
      best = d;
      out.clear();
    }
    if (d == best && out.size() < 3) out.push_back(candidate);
  }
  return out;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::vector<std::string> near = closest(typed, candidates);
  if (near.empty()) return "";
  std::string out = "; did you mean ";
  for (size_t i = 0; i < near.size(); ++i) {
    if (i > 0) out += i + 1 == near.size() ? " or " : ", ";
    out += "'" + near[i] + "'";
  }
  return out + "?";
}

}  // namespace gprof::cli
