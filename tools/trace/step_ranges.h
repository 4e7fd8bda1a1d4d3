// A file's training steps as kineto writes them: a "ProfilerStep#N"
// annotation over each step, which Holistic Trace Analysis needs to split a
// trace into iterations (hta/common/trace.py add_iteration; without one it
// warns "ProfilerStep not found in the trace" and takes the whole trace as
// one). Users who name their steps otherwise ("train_step", `--step NAME`)
// get them as well, beside their own range; steps already named
// ProfilerStep#N get nothing more. Which ranges are steps follows
// analysis::StepFinder (steps.h): the first pattern that matches a range of
// the file, without the ranges inside an earlier step.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/model/steps.h"

namespace gprof::trace {

class StepRanges {
 public:
  // `patterns`: --step globs; empty: analysis::default_step_patterns().
  explicit StepRanges(std::vector<std::string> patterns = {});

  // A push/pop range of thread `tid`, named `name` (its row name).
  void add(std::string_view name, uint32_t tid, uint64_t start_ns, uint64_t end_ns);

  struct Step {
    uint32_t tid;
    uint64_t start_ns;
    uint64_t end_ns;
  };
  // The steps to annotate, by start; none when they are ProfilerStep#N
  // ranges already. Empty afterwards.
  std::vector<Step> finish();

 private:
  struct Candidate {
    size_t pattern;
    Step step;
    bool profiler_step;  // named ProfilerStep#N already
  };
  analysis::StepFinder finder_;  // for its pattern matching
  std::vector<Candidate> candidates_;
};

}  // namespace gprof::trace
