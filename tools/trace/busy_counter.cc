#include "tools/trace/busy_counter.h"

#include <algorithm>

namespace gprof::trace {
namespace {

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

}  // namespace

void DeviceBusy::add(int64_t work_start, int64_t work_end) {
  // A damaged file's times can be anywhere in 64 bits; 2^61 ns is 73 years
  // from the origin, and keeps bucket * index far from overflowing.
  constexpr int64_t kFar = int64_t{1} << 61;
  work_start = std::clamp(work_start, -kFar, kFar) - phase_;
  work_end = std::clamp(work_end, -kFar, kFar) - phase_;
  const int64_t from = std::max(work_start, reached_);  // the union: nothing counted twice
  for (int64_t t = from; t < work_end;) {
    const int64_t b = floor_div(t, bucket_);
    if (!started_ || b != current_) move_to(b);
    if (t == b * bucket_ && work_end >= (b + 1) * bucket_) {
      skip_busy_buckets(b, floor_div(work_end, bucket_) - 1);
      t = (current_ + 1) * bucket_;
      continue;
    }
    const int64_t end = std::min(work_end, (b + 1) * bucket_);
    covered_ += end - t;
    t = end;
  }
  reached_ = std::max(reached_, work_end);
}

void DeviceBusy::finish() {
  if (!started_) return;
  sample(current_, percent());
  sample(current_ + 1, 0);
}

void DeviceBusy::move_to(int64_t b) {
  if (started_) {
    sample(current_, percent());
    if (b > current_ + 1) sample(current_ + 1, 0);
  }
  started_ = true;
  current_ = b;
  covered_ = 0;
}

void DeviceBusy::skip_busy_buckets(int64_t first, int64_t last) {
  if (last > first) {
    sample(first, 100.0);
    if (window_) {
      const int64_t opens = floor_div(window_->begin_ns - phase_, bucket_);
      if (opens > first && opens <= last) sample(opens, 100.0);
    }
    current_ = last;
  }
  covered_ = bucket_;
}

double DeviceBusy::percent() const {
  return 100.0 * static_cast<double>(covered_) / static_cast<double>(bucket_);
}

void DeviceBusy::sample(int64_t b, double value) {
  if (value == last_) return;
  const int64_t start = b * bucket_ + phase_;
  if (window_ && !window_->overlaps(start, start + bucket_)) return;
  last_ = value;
  emit_(start, value);
}

}  // namespace gprof::trace
