#include "tools/analysis/aggregate/clipped_sum_stream.h"

#include <algorithm>
#include <span>

namespace gprof::analysis {
namespace {

// The definitions of clipped_sum() and ThroughputVisitor's count, one interval at a time.
void add_clipped(const TimeInterval& i, uint64_t begin_ns, uint64_t end_ns, ClippedSum& out) {
  const uint64_t from = std::max(i.start_ns, begin_ns);
  const uint64_t to = std::min(i.end_ns, end_ns);
  if (to > from) out.ns += to - from;
  if (i.start_ns < end_ns && i.end_ns > begin_ns) ++out.overlapping;
}

}  // namespace

ClippedSumStream::ClippedSumStream(const SpillLimits& limits)
    : limits_(limits), chunk_(std::max<size_t>(limits.chunk_intervals, 1)) {
  memory_.reserve(chunk_);
}

void ClippedSumStream::spill() {
  if (!file_) file_ = std::make_unique<TempFile>("synchronize time");
  Chunk c{UINT64_MAX, 0, UINT64_MAX, 0, 0, 0, memory_.size()};
  for (const TimeInterval& i : memory_) {
    c.min_start_ns = std::min(c.min_start_ns, i.start_ns);
    c.max_start_ns = std::max(c.max_start_ns, i.start_ns);
    c.min_end_ns = std::min(c.min_end_ns, i.end_ns);
    c.max_end_ns = std::max(c.max_end_ns, i.end_ns);
    if (i.end_ns > i.start_ns) c.length_ns += i.end_ns - i.start_ns;
  }
  c.first = write_intervals(*file_, memory_);
  memory_.clear();
  chunks_.push_back(c);
  merge_neighbour_chunks(chunks_, limits_, [](Chunk& merged, const Chunk& next) {
    merged.min_start_ns = std::min(merged.min_start_ns, next.min_start_ns);
    merged.max_start_ns = std::max(merged.max_start_ns, next.max_start_ns);
    merged.min_end_ns = std::min(merged.min_end_ns, next.min_end_ns);
    merged.max_end_ns = std::max(merged.max_end_ns, next.max_end_ns);
    merged.length_ns += next.length_ns;
    merged.count += next.count;
  });
}

ClippedSum ClippedSumStream::sum(uint64_t begin_ns, uint64_t end_ns) const {
  ClippedSum out;
  for (const TimeInterval& i : memory_) add_clipped(i, begin_ns, end_ns, out);
  std::vector<TimeInterval> block;
  for (const Chunk& c : chunks_) {
    // Each interval of a chunk inside the window adds its whole length; one
    // outside adds nothing; an empty window nothing at all.
    const bool inside = c.min_start_ns >= begin_ns && c.max_end_ns <= end_ns;
    const bool outside = c.max_end_ns <= begin_ns || c.min_start_ns >= end_ns;
    const bool all_overlap = c.max_start_ns < end_ns && c.min_end_ns > begin_ns;
    const bool none_overlap = outside;
    const bool ns_known = inside || outside || end_ns <= begin_ns;
    if (ns_known && (all_overlap || none_overlap)) {
      if (inside && end_ns > begin_ns) out.ns += c.length_ns;
      if (all_overlap) out.overlapping += c.count;
      continue;
    }
    // Straddles an edge: read it back.
    IntervalReader reader(*file_, c.first, c.count, limits_.block_intervals);
    for (; !reader.done(); reader.pop()) add_clipped(reader.peek(), begin_ns, end_ns, out);
  }
  return out;
}

}  // namespace gprof::analysis
