#include "tools/analysis/aggregate/interval_run.h"

namespace gprof::analysis {

uint64_t write_intervals(TempFile& file, std::span<const TimeInterval> intervals) {
  return file.append(intervals.data(), intervals.size_bytes()) / sizeof(TimeInterval);
}

void read_intervals(const TempFile& file, uint64_t first, std::span<TimeInterval> out) {
  file.read(first * sizeof(TimeInterval), out.data(), out.size_bytes());
}

IntervalReader::IntervalReader(const TempFile& file, uint64_t first, uint64_t count, size_t block)
    : file_(&file), next_(first), left_(count), block_(std::max<size_t>(block, 1)) {
  if (left_ > 0) refill();
}

IntervalReader::IntervalReader(std::span<const TimeInterval> memory) : buffer_(memory) {}

void IntervalReader::refill() {
  const size_t n = static_cast<size_t>(std::min<uint64_t>(left_, block_));
  owned_.resize(n);
  read_intervals(*file_, next_, owned_);
  next_ += n;
  left_ -= n;
  buffer_ = owned_;
  at_ = 0;
}

void IntervalWriter::flush() {
  if (buffer_.empty()) return;
  write_intervals(file_, buffer_);
  buffer_.clear();
}

}  // namespace gprof::analysis
