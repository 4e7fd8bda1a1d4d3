// The bulk of one device's busy time: sorted, disjoint intervals appended in
// time order to a temporary file in chunks, with only each chunk's extent and
// covered length in memory, so that the covered length before any point is
// known from the summaries plus at most one chunk read back.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tools/analysis/aggregate/interval_run.h"
#include "tools/analysis/aggregate/spill_limits.h"

namespace gprof::analysis {

class CoverRun {
 public:
  explicit CoverRun(const SpillLimits& limits) : limits_(limits) {}

  bool empty() const { return chunks_.empty(); }
  // The end of the last interval appended (0 when empty): appended intervals
  // must start at or after it.
  uint64_t end_ns() const { return chunks_.empty() ? 0 : chunks_.back().last_end_ns; }
  // Sorted, disjoint, non-empty intervals starting at or after end_ns().
  void append(std::span<const TimeInterval> intervals);

  // The covered length of the run before a point, for points that never
  // decrease: each chunk is skipped whole or read once, block by block.
  class Cursor {
   public:
    explicit Cursor(const CoverRun& run) : run_(run) {}
    uint64_t covered_before(uint64_t point);

   private:
    const CoverRun& run_;
    size_t chunk_ = 0;
    uint64_t covered_ = 0;  // by the chunks before chunk_
    // Inside chunk_: the intervals before index_ (read, all before the last
    // point) and their length; the read buffer.
    uint64_t index_ = 0;
    uint64_t inside_ = 0;
    std::vector<TimeInterval> block_;
    uint64_t block_first_ = 0;  // index in the chunk of block_[0]
  };

 private:
  struct Chunk {
    uint64_t first_start_ns;
    uint64_t last_end_ns;
    uint64_t covered_ns;
    uint64_t first;  // index of its first interval in file_
    uint64_t count;
  };
  void add_chunk(std::span<const TimeInterval> intervals);

  SpillLimits limits_;
  std::unique_ptr<TempFile> file_;
  std::vector<Chunk> chunks_;  // at most limits_.max_chunks
};

}  // namespace gprof::analysis
