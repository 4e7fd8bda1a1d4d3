// covered_length() (gpu_busy.h) of a stream of intervals that arrive in any
// order, without keeping them all: the length of their union clipped to a
// window known only at the end.
//
// In memory, per stream (limits: spill_limits.h; defaults in brackets):
//   - the recent union: sorted, disjoint intervals, up to memory_intervals
//     (64K × 16 B = 1 MiB, plus as much again to merge into);
//   - intervals that arrived behind the recent union's last start, merged
//     in by chunk_intervals (4096 × 16 B = 64 KiB), or, when a merge would
//     move more recent ones than that, once they are as many as those, up
//     to memory_intervals (1 MiB);
//   - the summaries of the chunks on disk, up to max_chunks (4096 × 40 B);
//   - a handful of file handles for late runs (below), and read buffers of
//     block_intervals (16 KiB) each while runs are merged or read back.
// On disk (anonymous temporary files): when the recent union is full, its
// older half goes out, 16 bytes per disjoint interval: appended to the main
// run (cover_run.h) when it starts at or after the main run's end, written
// as a late run otherwise; late runs merge LSM-style (runs_per_level of one
// level into one of the next), so an arrival order of any disorder costs
// O(log n) rewrites per interval and nearly sorted ones none.
// At the end: the main run's covered length in the window comes from its
// summaries and the chunks holding the window's edges; the late runs and the
// memory are merged into one union, and what it adds to the main run is
// its length minus its overlap with the main run (the main run's chunks
// under the late union's edges read back).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tools/analysis/aggregate/cover_run.h"
#include "tools/analysis/aggregate/interval_run.h"
#include "tools/analysis/aggregate/spill_limits.h"

namespace gprof::analysis {

class CoveredLengthStream {
 public:
  explicit CoveredLengthStream(const SpillLimits& limits = {});

  // [start_ns, end_ns); end_ns <= start_ns adds nothing (as covered_length).
  void add(uint64_t start_ns, uint64_t end_ns) {
    if (end_ns <= start_ns) return;
    if (recent_.empty() || start_ns >= recent_.back().start_ns) {
      if (!recent_.empty() && start_ns <= recent_.back().end_ns) {
        if (end_ns > recent_.back().end_ns) recent_.back().end_ns = end_ns;
      } else {
        recent_.push_back({start_ns, end_ns});
        if (recent_.size() >= memory_cap_) spill_older_half();
      }
    } else if (!insert_near_end(start_ns, end_ns)) {
      behind_.push_back({start_ns, end_ns});
      if (start_ns < behind_first_) behind_first_ = start_ns;
      if (behind_.size() >= next_merge_) merge_behind_when_worth_it();
    }
  }

  // The length of the union of everything added, clipped to [begin, end):
  // what covered_length() gives for the same intervals. May read back from
  // disk; adding more afterwards is allowed.
  uint64_t covered(uint64_t begin_ns, uint64_t end_ns);

  // For tests: whether anything went to disk, and how many late runs exist.
  bool spilled() const { return !main_.empty() || late_runs() > 0; }
  size_t late_runs() const;

 private:
  struct LateRun {
    std::unique_ptr<TempFile> file;
    uint64_t count;
  };
  // An interval that starts among the last few recent ones goes straight in
  // (streams interleaved in time); false when it is further behind.
  bool insert_near_end(uint64_t start_ns, uint64_t end_ns);
  void merge_behind_when_worth_it();
  void merge_behind();
  void spill_older_half();
  void add_late_run(std::span<const TimeInterval> intervals);

  SpillLimits limits_;
  size_t memory_cap_;
  size_t behind_cap_;
  std::vector<TimeInterval> recent_;    // sorted, disjoint
  std::vector<TimeInterval> behind_;    // arrived before recent_.back().start_ns; any order
  uint64_t behind_first_ = UINT64_MAX;  // the earliest start in behind_
  size_t next_merge_;                   // behind_'s size at which a merge is weighed
  std::vector<TimeInterval> scratch_;   // for merging behind_ into recent_
  CoverRun main_;
  std::vector<std::vector<LateRun>>
      levels_;  // each sorted and disjoint; level i+1 from merges of i
};

}  // namespace gprof::analysis
