#include "tools/trace/step_ranges.h"

#include <algorithm>

namespace gprof::trace {

StepRanges::StepRanges(std::vector<std::string> patterns)
    : finder_(patterns.empty() ? analysis::default_step_patterns() : std::move(patterns)) {}

void StepRanges::add(std::string_view name, uint32_t tid, uint64_t start_ns, uint64_t end_ns) {
  const size_t pattern = finder_.pattern_of(name);
  if (pattern == analysis::StepFinder::kNoPattern) return;
  candidates_.push_back(
      Candidate{pattern, Step{tid, start_ns, end_ns}, name.starts_with("ProfilerStep#")});
}

std::vector<StepRanges::Step> StepRanges::finish() {
  std::vector<Step> steps;
  if (candidates_.empty()) return steps;
  size_t best = SIZE_MAX;
  for (const Candidate& c : candidates_) best = std::min(best, c.pattern);
  std::vector<Candidate> chosen;
  for (const Candidate& c : candidates_)
    if (c.pattern == best) chosen.push_back(c);
  candidates_.clear();
  std::stable_sort(chosen.begin(), chosen.end(), [](const Candidate& a, const Candidate& b) {
    return a.step.start_ns < b.step.start_ns;
  });
  if (std::all_of(chosen.begin(), chosen.end(), [](const Candidate& c) { return c.profiler_step; }))
    return steps;
  for (const Candidate& c : chosen)
    if (steps.empty() || c.step.start_ns >= steps.back().end_ns) steps.push_back(c.step);
  return steps;
}

}  // namespace gprof::trace
