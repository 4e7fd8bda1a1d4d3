// The "GPU busy" counter of each device: the share of each bucket (aligned
// to the trace's first record, kLeadNs after its origin) during which any kernel, copy or set ran
// on it, the union of their intervals (work overlapping on several streams counts once), as a
// percentage. A sample is emitted when the value changes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "tools/trace/time_window.h"

namespace gprof::trace {

// One device's samples, one bucket at a time, from its kept work intervals
// (relative times) given in (start, end) order; buckets that do not overlap
// `window` are left out.
class DeviceBusy {
 public:
  // Receives each sample: the bucket's start (relative) and the percentage.
  using Emit = std::function<void(int64_t start, double percent)>;

  // Buckets start at `phase` + k * bucket_ns.
  DeviceBusy(uint64_t bucket_ns, int64_t phase, const std::optional<TimeWindow>& window, Emit emit)
      : bucket_(static_cast<int64_t>(bucket_ns)),
        phase_(phase),
        window_(window),
        emit_(std::move(emit)) {}

  void add(int64_t work_start, int64_t work_end);
  // The last busy bucket, then idle from the next one on.
  void finish();

 private:
  // Closes the current bucket; a gap of idle buckets reads 0.
  void move_to(int64_t b);
  // Buckets first..last are all busy: their samples would repeat 100%, so
  // one at the first (and one where the window starts) stands for them all,
  // and a long kernel costs no more than a short one.
  void skip_busy_buckets(int64_t first, int64_t last);
  double percent() const;
  void sample(int64_t b, double value);

  int64_t bucket_;
  int64_t phase_;  // times below are relative to it, but for window_ and emit_
  const std::optional<TimeWindow>& window_;
  Emit emit_;
  bool started_ = false;
  int64_t current_ = 0;
  int64_t covered_ = 0;
  int64_t reached_ = INT64_MIN;
  double last_ = -1;
};

}  // namespace gprof::trace
