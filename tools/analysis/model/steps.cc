#include "tools/analysis/model/steps.h"

#include <algorithm>
#include <cmath>

#include "tools/analysis/model/glob.h"

namespace gprof::analysis {

std::vector<std::string> default_step_patterns() {
  return {"ProfilerStep*", "step*"};
}

double quantile(const std::vector<uint64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return static_cast<double>(sorted[below]) +
         (static_cast<double>(sorted[above]) - static_cast<double>(sorted[below])) * fraction;
}

void StepFinder::add(const std::string& name, uint64_t start_ns, uint64_t end_ns) {
  add(pattern_of(name), start_ns, end_ns);
}

size_t StepFinder::pattern_of(std::string_view name) const {
  for (size_t i = 0; i < patterns_.size(); ++i)
    if (glob_match(patterns_[i], name)) return i;
  return kNoPattern;
}

void StepFinder::add(size_t pattern, uint64_t start_ns, uint64_t end_ns) {
  if (pattern != kNoPattern) candidates_.push_back(Candidate{pattern, start_ns, end_ns});
}

std::optional<StepStats> StepFinder::finish() {
  if (candidates_.empty()) return std::nullopt;
  size_t pattern = patterns_.size();
  for (const Candidate& c : candidates_) pattern = std::min(pattern, c.pattern);
  std::vector<Candidate> steps;
  for (const Candidate& c : candidates_)
    if (c.pattern == pattern) steps.push_back(c);
  candidates_.clear();
  std::stable_sort(steps.begin(), steps.end(), [](const Candidate& a, const Candidate& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });

  StepStats stats;
  stats.pattern = patterns_[pattern];
  std::vector<uint64_t> durations;
  uint64_t covered_until = 0;
  for (const Candidate& c : steps) {
    if (!durations.empty() && c.end_ns <= covered_until) continue;  // inside an earlier step
    if (durations.empty()) stats.first_start_ns = c.start_ns;
    durations.push_back(c.end_ns - c.start_ns);
    covered_until = std::max(covered_until, c.end_ns);
  }
  stats.last_end_ns = covered_until;
  stats.count = durations.size();
  std::sort(durations.begin(), durations.end());
  stats.min_ns = durations.front();
  stats.max_ns = durations.back();
  stats.median_ns = quantile(durations, 0.5);
  stats.p95_ns = quantile(durations, 0.95);
  return stats;
}

}  // namespace gprof::analysis
