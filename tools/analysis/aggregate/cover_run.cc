#include "tools/analysis/aggregate/cover_run.h"

#include <algorithm>

namespace gprof::analysis {

void CoverRun::append(std::span<const TimeInterval> intervals) {
  const size_t chunk = std::max<size_t>(limits_.chunk_intervals, 1);
  for (size_t at = 0; at < intervals.size(); at += chunk)
    add_chunk(intervals.subspan(at, std::min(chunk, intervals.size() - at)));
}

void CoverRun::add_chunk(std::span<const TimeInterval> intervals) {
  if (!file_) file_ = std::make_unique<TempFile>("GPU busy time");
  uint64_t covered = 0;
  for (const TimeInterval& i : intervals) covered += i.end_ns - i.start_ns;
  chunks_.push_back(Chunk{intervals.front().start_ns, intervals.back().end_ns, covered,
                          write_intervals(*file_, intervals), intervals.size()});
  merge_neighbour_chunks(chunks_, limits_, [](Chunk& merged, const Chunk& next) {
    merged.last_end_ns = next.last_end_ns;
    merged.covered_ns += next.covered_ns;
    merged.count += next.count;
  });
}

uint64_t CoverRun::Cursor::covered_before(uint64_t point) {
  const std::vector<Chunk>& chunks = run_.chunks_;
  while (chunk_ < chunks.size() && chunks[chunk_].last_end_ns <= point) {
    covered_ += chunks[chunk_].covered_ns;
    ++chunk_;
    index_ = inside_ = 0;
    block_.clear();
  }
  if (chunk_ == chunks.size() || chunks[chunk_].first_start_ns >= point) return covered_;
  // The point falls inside this chunk: walk its intervals up to the point.
  const Chunk& c = chunks[chunk_];
  while (index_ < c.count) {
    if (index_ >= block_first_ + block_.size() || index_ < block_first_ || block_.empty()) {
      block_.resize(static_cast<size_t>(
          std::min<uint64_t>(c.count - index_, std::max<size_t>(run_.limits_.block_intervals, 1))));
      read_intervals(*run_.file_, c.first + index_, block_);
      block_first_ = index_;
    }
    const TimeInterval& i = block_[index_ - block_first_];
    if (i.end_ns > point) return covered_ + inside_ + (i.start_ns < point ? point - i.start_ns : 0);
    inside_ += i.end_ns - i.start_ns;
    ++index_;
  }
  return covered_ + inside_;  // not reached: the chunk ends after the point
}

}  // namespace gprof::analysis
