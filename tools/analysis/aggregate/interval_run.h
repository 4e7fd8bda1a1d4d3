// Runs of intervals on disk: written in blocks to a temporary file, read back
// in blocks, and merged into their union (the building blocks of
// covered_length_stream.h and clipped_sum_stream.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "tools/analysis/read/temp_file.h"

namespace gprof::analysis {

// [start_ns, end_ns); as written to disk.
struct TimeInterval {
  uint64_t start_ns;
  uint64_t end_ns;
};
static_assert(std::is_trivially_copyable_v<TimeInterval> && sizeof(TimeInterval) == 16);

// Appends intervals to a file; returns the index (in intervals from the
// file's start) of the first. read_intervals reads out.size() of them back.
uint64_t write_intervals(TempFile& file, std::span<const TimeInterval> intervals);
void read_intervals(const TempFile& file, uint64_t first, std::span<TimeInterval> out);

// Reads `count` intervals from index `first` of a file, or a span in memory,
// one at a time through a buffer of `block` intervals.
class IntervalReader {
 public:
  IntervalReader(const TempFile& file, uint64_t first, uint64_t count, size_t block);
  explicit IntervalReader(std::span<const TimeInterval> memory);
  IntervalReader(IntervalReader&&) noexcept = default;  // the buffer moves with it
  IntervalReader(const IntervalReader&) = delete;
  IntervalReader& operator=(const IntervalReader&) = delete;

  bool done() const { return at_ == buffer_.size() && left_ == 0; }
  // Not done(): the current interval.
  const TimeInterval& peek() const { return buffer_[at_]; }
  void pop() {
    if (++at_ == buffer_.size() && left_ > 0) refill();
  }

 private:
  void refill();
  const TempFile* file_ = nullptr;
  uint64_t next_ = 0;  // index in the file of the next block
  uint64_t left_ = 0;  // intervals not yet in the buffer
  size_t block_ = 0;
  std::vector<TimeInterval> owned_;
  std::span<const TimeInterval> buffer_;
  size_t at_ = 0;
};

// Collects sorted, disjoint intervals into a file in blocks.
class IntervalWriter {
 public:
  IntervalWriter(TempFile& file, size_t block) : file_(file), block_(std::max<size_t>(block, 1)) {}
  void add(const TimeInterval& interval) {
    buffer_.push_back(interval);
    ++count_;
    if (buffer_.size() >= block_) flush();
  }
  // Writes what is buffered; returns the number of intervals added.
  uint64_t finish() {
    flush();
    return count_;
  }

 private:
  void flush();
  TempFile& file_;
  size_t block_;
  std::vector<TimeInterval> buffer_;
  uint64_t count_ = 0;
};

// The union of the sources' intervals (each source sorted by start; they may
// overlap each other and themselves), as sorted disjoint intervals handed to
// `sink`; empty intervals (end <= start) are left out.
template <typename Sink>
void merge_union(std::vector<IntervalReader>& sources, Sink&& sink) {
  const auto later = [&](size_t a, size_t b) {
    return sources[a].peek().start_ns > sources[b].peek().start_ns;
  };
  std::vector<size_t> heap;
  for (size_t i = 0; i < sources.size(); ++i)
    if (!sources[i].done()) heap.push_back(i);
  std::make_heap(heap.begin(), heap.end(), later);
  bool open = false;
  TimeInterval current{0, 0};
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    IntervalReader& source = sources[heap.back()];
    const TimeInterval next = source.peek();
    source.pop();
    if (source.done())
      heap.pop_back();
    else
      std::push_heap(heap.begin(), heap.end(), later);
    if (next.end_ns <= next.start_ns) continue;
    if (open && next.start_ns <= current.end_ns) {
      current.end_ns = std::max(current.end_ns, next.end_ns);
    } else {
      if (open) sink(current);
      current = next;
      open = true;
    }
  }
  if (open) sink(current);
}

}  // namespace gprof::analysis
