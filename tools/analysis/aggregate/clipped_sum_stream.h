// clipped_sum() (gpu_busy.h) of a stream of intervals, and how many of them
// overlap the window, for a window known only at the end, without keeping
// the intervals: synchronize calls of all threads of a process.
//
// The intervals are kept in arrival order in chunks of chunk_intervals
// (spill_limits.h; 4096 × 16 B = 64 KiB in memory); each full chunk goes to
// an anonymous temporary file (16 bytes per interval) and leaves a summary
// (its smallest and largest start and end, its count and summed length, 64 B)
// behind, up to max_chunks of them (beyond, neighbours merge). Against a
// window, a chunk entirely inside or outside counts from its summary; only
// the chunks that straddle an edge are read back (calls arriving nearly in
// time order: one or two).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tools/analysis/aggregate/interval_run.h"
#include "tools/analysis/aggregate/spill_limits.h"

namespace gprof::analysis {

struct ClippedSum {
  uint64_t ns = 0;           // clipped_sum()
  uint64_t overlapping = 0;  // intervals with start < end of window and end > its begin
};

class ClippedSumStream {
 public:
  explicit ClippedSumStream(const SpillLimits& limits = {});

  // Any interval, end_ns < start_ns included (it may still count as overlapping).
  void add(uint64_t start_ns, uint64_t end_ns) {
    memory_.push_back({start_ns, end_ns});
    if (memory_.size() >= chunk_) spill();
  }

  ClippedSum sum(uint64_t begin_ns, uint64_t end_ns) const;

  // For tests: chunks on disk.
  size_t chunks() const { return chunks_.size(); }

 private:
  struct Chunk {
    uint64_t min_start_ns;
    uint64_t max_start_ns;
    uint64_t min_end_ns;
    uint64_t max_end_ns;
    uint64_t length_ns;  // the sum of end - start where positive
    uint64_t first;      // index of its first interval in file_
    uint64_t count;
  };
  void spill();

  SpillLimits limits_;
  size_t chunk_;
  std::vector<TimeInterval> memory_;
  std::unique_ptr<TempFile> file_;
  std::vector<Chunk> chunks_;
};

}  // namespace gprof::analysis
