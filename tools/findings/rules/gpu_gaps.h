// What gpu-idle computes, in one pass over sorted input, so that the
// in-memory timeline and the stream (streamed_analysis.h) share it:
//   GapFinder:    the idle gaps of one device, from its busy intervals by
//                 (start, end), within the windows that count;
//   GapExplainer: for gaps by start, the innermost range open during most of
//                 each and the API calls open during it, from ranges and
//                 calls by start. It keeps only what overlaps the gap at hand.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "formats/api_ids.h"

namespace gprof::findings {

uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1);

class GapFinder {
 public:
  using Emit = std::function<void(uint64_t start_ns, uint64_t end_ns)>;
  // `windows` sorted and disjoint; `min_gap` at least 1.
  GapFinder(std::vector<std::pair<uint64_t, uint64_t>> windows, uint64_t min_gap, Emit emit);
  // The device's busy intervals, by (start, end).
  void add(uint64_t start_ns, uint64_t end_ns);
  void finish();
  // The windows' length: the time the gaps are a share of.
  uint64_t window_ns() const { return window_ns_; }

 private:
  bool open_window();  // moves to the next non-empty window; false: none left
  void close_window();

  std::vector<std::pair<uint64_t, uint64_t>> windows_;
  uint64_t min_gap_;
  Emit emit_;
  size_t window_ = 0;
  bool in_window_ = false;
  uint64_t cursor_ = 0;
  uint64_t latest_end_ = 0;  // of the intervals already seen
  uint64_t window_ns_ = 0;
};

// Without steps or --range, where a device's start-up ends: at the end of
// the last idle gap of `min_gap` or more that began before the device had
// run `share` of its kernels. Imports, model building and the loading of
// cuBLAS and of the modules keep the GPU idle between the first copies of
// weights and data and the loop: 5.4 s of a 5.8 s torch run on an H200
// (2026-11-27, ../shared/real-gpu: torch-681), after two 16 MB uploads that
// were a quarter of the run's GPU time, so copies do not count. Kernels by
// number, not time: a loop of short kernels before one long one is the
// run's work, not its start-up. A loop's own stall comes after its first
// iteration's kernels: past the share unless the run has more than 1/share
// iterations, and then the stalls left out are that share of them.
class StartupFinder {
 public:
  // `kernels`: how many kernels the device ran.
  StartupFinder(uint64_t kernels, double share, uint64_t min_gap);
  // The device's busy intervals (kernels, copies, sets), by start.
  void add(uint64_t start_ns, uint64_t end_ns, bool kernel);
  uint64_t end_ns() const { return end_ns_; }  // 0: no start-up

 private:
  double limit_;
  uint64_t min_gap_;
  uint64_t kernels_ = 0;  // so far
  uint64_t covered_ = 0;  // the latest end so far
  bool started_ = false;
  bool done_ = false;
  uint64_t end_ns_ = 0;
};

// Without --range, a gap that ends where a kernel first ran on its device
// is warm-up: the first launch of a kernel loads its module (CUDA's lazy
// loading) and the first call of each op sets things up (cuBLAS handles,
// workspaces). In a torch loop on an H200 (2026-11-27, ../shared/real-gpu:
// torch-681) every gap of 1 ms or more after the start-up ended with a
// kernel's first run, 136 ms of the loop's 177 ms, in its first iteration;
// no later one had any. gpu-idle shows such gaps apart, not counted.
class FirstRuns {
 public:
  // A device's busy intervals by start; `name`: the kernel's row name, its
  // text (one kernel may have several ids, the stream's before it was
  // named), which outlives this.
  void add(uint64_t start_ns, std::string_view name, bool kernel) {
    if (kernel && seen_.insert(name).second) starts_.push_back(start_ns);
  }
  // Whether a kernel first ran at `time_ns` (a gap ending there is warm-up).
  bool at(uint64_t time_ns) const {
    return std::binary_search(starts_.begin(), starts_.end(), time_ns);
  }

 private:
  std::unordered_set<std::string_view> seen_;
  std::vector<uint64_t> starts_;  // by time
};

struct ExplainedGap {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  const std::string* range = nullptr;  // innermost range open during most of it; nullptr: none
  uint32_t range_tid = 0;
  std::vector<std::pair<uint64_t, std::string_view>> calls;  // (overlap, API name), most first
  uint64_t length() const { return end_ns - start_ns; }
};

class GapExplainer {
 public:
  struct Range {
    uint64_t start_ns;
    uint64_t end_ns;
    const std::string* name;
    uint32_t tid;
  };
  struct Call {
    uint64_t start_ns;
    uint64_t end_ns;
    ApiId api;
  };
  // Before explain(gap): every range and call that starts before the gap
  // ends, by start, not given before.
  void add_range(const Range& range, uint64_t gap_start_ns) {
    if (range.end_ns > gap_start_ns) ranges_.push_back(range);
  }
  void add_call(const Call& call, uint64_t gap_start_ns) {
    if (call.end_ns > gap_start_ns) calls_.push_back(call);
  }
  // Gaps by start.
  void explain(ExplainedGap& gap);

 private:
  std::vector<Range> ranges_;
  std::vector<Call> calls_;
};

}  // namespace gprof::findings
