#include "tools/findings/timeline/timeline.h"

#include <fmt/format.h>

#include <algorithm>

namespace gprof::findings {

uint64_t Timeline::window_ns() const {
  uint64_t total = 0;
  for (const auto& [begin, end] : windows) total += end - begin;
  return total;
}

uint64_t Timeline::setup_ns() const {
  uint64_t total = 0;
  for (const auto& [begin, end] : windows)
    if (begin < setup_end_ns) total += std::min(end, setup_end_ns) - begin;
  return total;
}

bool Timeline::windows_cover(uint64_t time_ns) const {
  auto it = std::upper_bound(windows.begin(), windows.end(), std::pair{time_ns, UINT64_MAX});
  if (it == windows.begin()) return false;
  --it;
  return time_ns <= it->second;
}

const std::string* Timeline::thread_name(uint32_t tid) const {
  for (const auto& [id, name] : thread_names)
    if (id == tid) return &name;
  return nullptr;
}

std::string file_label(const Timeline& timeline) {
  if (!timeline.rank.empty()) return "rank " + timeline.rank;
  const size_t slash = timeline.path.rfind('/');
  return slash == std::string::npos ? timeline.path : timeline.path.substr(slash + 1);
}

std::vector<std::pair<uint64_t, uint64_t>> merged_windows(
    std::vector<std::pair<uint64_t, uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& [begin, end] : intervals) {
    if (!out.empty() && begin <= out.back().second)
      out.back().second = std::max(out.back().second, end);
    else
      out.emplace_back(begin, end);
  }
  return out;
}

}  // namespace gprof::findings
