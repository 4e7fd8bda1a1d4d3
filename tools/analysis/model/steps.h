// Training steps from NVTX ranges, as the seeds' ThroughputMeter measured
// them: which ranges are steps, and the statistics of their durations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gprof::analysis {

// torch.profiler's schedule names its steps "ProfilerStep#N"; hand-written
// loops often use "step N". The first pattern that matches a range of a file
// wins, so a "step_optimizer" range inside "ProfilerStep#3" is no step.
std::vector<std::string> default_step_patterns();

struct StepStats {
  std::string pattern;  // the one that matched
  uint64_t count = 0;
  uint64_t first_start_ns = 0;
  uint64_t last_end_ns = 0;
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
  double median_ns = 0;
  double p95_ns = 0;

  uint64_t window_ns() const { return last_end_ns - first_start_ns; }
};

// The q-quantile (0..1) of sorted samples with linear interpolation between
// the closest ranks (numpy's default); 0 when empty.
double quantile(const std::vector<uint64_t>& sorted, double q);

// Collects candidate ranges of one file and picks its steps.
class StepFinder {
 public:
  explicit StepFinder(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {}

  void add(const std::string& name, uint64_t start_ns, uint64_t end_ns);
  // The same in two halves, for a caller that sees one name many times:
  // the first pattern `name` matches (kNoPattern: none), then the range.
  static constexpr size_t kNoPattern = SIZE_MAX;
  size_t pattern_of(std::string_view name) const;
  void add(size_t pattern, uint64_t start_ns, uint64_t end_ns);

  // The steps: ranges matching the first pattern that matched any, minus
  // those inside an earlier step (a step range nested in another is part of
  // it). nullopt when none matched. Empty afterwards.
  std::optional<StepStats> finish();

 private:
  struct Candidate {
    size_t pattern;
    uint64_t start_ns;
    uint64_t end_ns;
  };
  std::vector<std::string> patterns_;
  std::vector<Candidate> candidates_;
};

}  // namespace gprof::analysis
