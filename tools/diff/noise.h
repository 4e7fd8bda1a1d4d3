// Telling a change from run-to-run noise when a side has several runs: a
// rule fails only when every NEW run is above every BASE run. That is the
// one-sided Mann-Whitney U test at U = 0, whose p-value is 1 / C(n + m, n)
// (0.05 for 3 runs against 3): exact, with no assumption about the shape of
// the noise, and cheap to explain in a PR comment.
#pragma once

#include <cstddef>
#include <string>

#include "tools/diff/spread.h"

namespace gprof::diff {

class NoiseTest {
 public:
  NoiseTest(size_t base_runs, size_t new_runs) : base_runs_(base_runs), new_runs_(new_runs) {}

  // Whether there is a test: some side has two runs or more.
  bool applies() const { return base_runs_ >= 2 || new_runs_ >= 2; }

  // Whether an increase is beyond the noise: every NEW run above every BASE
  // run. Always true when the test does not apply.
  bool increase_beyond(const Spread& base, const Spread& now) const;

  // Whether the medians differ but the runs' ranges overlap.
  bool within_noise(const Spread& base, const Spread& now) const;

  // The chance that U = 0 happens without any real change.
  double p_value() const;

  // One line for every output: "noise test: ranges of 3 base and 3 new runs
  // must not overlap (one-sided Mann-Whitney U = 0, p = 0.05)", or why there
  // is none.
  std::string description() const;

  size_t base_runs() const { return base_runs_; }
  size_t new_runs() const { return new_runs_; }

 private:
  size_t base_runs_;
  size_t new_runs_;
};

}  // namespace gprof::diff
