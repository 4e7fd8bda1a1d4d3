// How CUPTI's timestamps become nanoseconds of the recording clock. CUPTI
// stamps records on gprof's clock (gprof's timestamp callback: identity), on
// its own (nanoseconds since the epoch, observed: an offset), or on a clock
// another tool registered, which need not count nanoseconds at all: kineto's
// counts TSC ticks (c10/util/ApproximateClock.h, getApproximateTime returns
// __rdtsc()), converted to time only in kineto's own post-processing. On an
// H200 (2026-11-29) gprof took those ticks for nanoseconds: every GPU record
// after torch.profiler stopped came out 2.1 times too long (the TSC's GHz),
// its "offset" 160 s. A clock that does not count nanoseconds is mapped
// linearly, through two samples taken far apart.
#pragma once

#include <cmath>
#include <cstdint>

namespace gprof {

class ClockMap {
 public:
  // CUPTI's clock minus the recording clock, in nanoseconds of both.
  ClockMap(int64_t offset_ns = 0) : offset_ns_(offset_ns) {}  // NOLINT: an offset is a map
  // Two readings of both clocks taken together, far enough apart that their
  // sampling error is small against the span.
  static ClockMap fitted(uint64_t tick0, uint64_t ns0, uint64_t tick1, uint64_t ns1);

  uint64_t to_ns(uint64_t t) const {
    if (!linear_) return static_cast<uint64_t>(static_cast<int64_t>(t) - offset_ns_);
    const double ticks = static_cast<double>(static_cast<int64_t>(t - anchor_tick_));
    return anchor_ns_ + static_cast<uint64_t>(std::llround(ticks * ns_per_tick_));
  }
  bool linear() const { return linear_; }
  double ns_per_tick() const { return linear_ ? ns_per_tick_ : 1.0; }
  // What `info` shows as the offset: CUPTI's clock minus the recording clock
  // at the anchor (at any time when not linear).
  int64_t offset_ns() const {
    return linear_ ? static_cast<int64_t>(anchor_tick_) - static_cast<int64_t>(anchor_ns_)
                   : offset_ns_;
  }

 private:
  int64_t offset_ns_ = 0;
  bool linear_ = false;
  double ns_per_tick_ = 1.0;
  uint64_t anchor_tick_ = 0;
  uint64_t anchor_ns_ = 0;
};

inline ClockMap ClockMap::fitted(uint64_t tick0, uint64_t ns0, uint64_t tick1, uint64_t ns1) {
  const double ticks = static_cast<double>(static_cast<int64_t>(tick1 - tick0));
  const double ns = static_cast<double>(static_cast<int64_t>(ns1 - ns0));
  const int64_t offset = static_cast<int64_t>(tick1) - static_cast<int64_t>(ns1);
  if (ticks <= 0 || ns <= 0) return ClockMap(offset);
  const double rate = ns / ticks;
  // A clock that counts nanoseconds: an offset, as exact as before.
  if (std::fabs(rate - 1.0) < 1e-4) return ClockMap(offset);
  ClockMap m;
  m.linear_ = true;
  m.ns_per_tick_ = rate;
  m.anchor_tick_ = tick1;
  m.anchor_ns_ = ns1;
  return m;
}

}  // namespace gprof
