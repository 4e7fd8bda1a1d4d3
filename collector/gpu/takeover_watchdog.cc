#include "collector/gpu/takeover_watchdog.h"

namespace gprof {

void TakeoverWatchdog::calls(const Calls& c) {
  if (c.launches != 0) {
    if (launches_ == 0) first_launch_ns_ = c.first_launch_ns;
    launches_ += c.launches;
  }
  if (launches_ == 0) return;
  const uint64_t wait =
      sync_records_ ? (c.wait_end_ns > c.device_wait_end_ns ? c.wait_end_ns : c.device_wait_end_ns)
                    : c.device_wait_end_ns;
  // A later wait restarts the count: its record is due from its return on.
  if (wait > first_launch_ns_ && wait > wait_end_ns_) {
    wait_end_ns_ = wait;
    flushes_ = 0;
  }
}

void TakeoverWatchdog::records(uint64_t count) {
  if (count != 0) reset();
}

void TakeoverWatchdog::flushed() {
  if (wait_end_ns_ != 0) ++flushes_;
}

void TakeoverWatchdog::reset() {
  launches_ = 0;
  first_launch_ns_ = 0;
  wait_end_ns_ = 0;
  flushes_ = 0;
}

bool TakeoverWatchdog::stopped(uint64_t now_ns) const {
  return launches_ >= kMinLaunches && wait_end_ns_ != 0 && flushes_ >= kMinFlushes &&
         now_ns > wait_end_ns_ && now_ns - wait_end_ns_ >= kSettleNs;
}

}  // namespace gprof
