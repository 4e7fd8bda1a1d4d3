#include "timestamps.h"

#include <ctime>

#include <atomic>
#include <cstdint>

#include "config.h"

namespace gprof_fake_cupti {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

std::atomic<CUpti_TimestampCallbackFunc> g_callback{nullptr};
// The callback's clock as a line through two readings of it (its ticks need not be
// nanoseconds): anchor on both clocks, and its ticks per nanosecond.
struct Line {
  int64_t anchor_monotonic = 0;
  uint64_t anchor_ticks = 0;
  double ticks_per_ns = 1.0;
};
std::atomic<const Line*> g_line{nullptr};
Line g_lines[2];  // the one in use and the next (registrations are rare and not concurrent)
int g_next_line = 0;

// A reading of `callback` and the time on CLOCK_MONOTONIC taken around it: the tightest of a
// few, so that a descheduled one does not bend the line.
void Read(CUpti_TimestampCallbackFunc callback, int64_t& monotonic, uint64_t& ticks) {
  int64_t best = INT64_MAX;
  for (int i = 0; i < 8; ++i) {
    const int64_t before = MonotonicNs();
    const uint64_t t = callback();
    const int64_t after = MonotonicNs();
    if (after - before < best) {
      best = after - before;
      ticks = t;
      monotonic = before + (after - before) / 2;
    }
  }
}

}  // namespace

int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

uint64_t ToCuptiTime(int64_t monotonic_ns) {
  if (g_callback.load(std::memory_order_acquire) != nullptr) {
    if (const Line* line = g_line.load(std::memory_order_acquire)) {
      const double ticks =
          static_cast<double>(monotonic_ns - line->anchor_monotonic) * line->ticks_per_ns;
      return line->anchor_ticks + static_cast<uint64_t>(static_cast<int64_t>(ticks));
    }
  }
  return static_cast<uint64_t>(monotonic_ns + GetConfig().clock_offset_ns);
}

uint64_t CuptiNow() {
  if (const CUpti_TimestampCallbackFunc callback = g_callback.load(std::memory_order_acquire);
      callback != nullptr) {
    return callback();
  }
  return ToCuptiTime(MonotonicNs());
}

void SetTimestampCallback(CUpti_TimestampCallbackFunc callback) {
  if (callback != nullptr) {
    // Records go on the callback's clock, whatever it counts: kineto's counts TSC ticks
    // (c10/util/ApproximateClock.h: getApproximateTime returns __rdtsc()) and converts
    // CUPTI's timestamps to time only afterwards, so CUPTI must stamp them in those ticks;
    // on an H200 (2026-11-29) gprof sampled a 160 s "offset" to kineto's clock, the TSC's
    // 2.1 GHz over the machine's uptime. Our assumption: CUPTI maps its clock to the callback's
    // through readings of it; here two, 5 ms apart (a line that far off on its rate stays
    // within microseconds over the runs of the tests).
    Line& line = g_lines[g_next_line];
    g_next_line ^= 1;
    int64_t m0 = 0, m1 = 0;
    uint64_t t0 = 0, t1 = 0;
    Read(callback, m0, t0);
    const timespec wait{0, 5'000'000};
    nanosleep(&wait, nullptr);
    Read(callback, m1, t1);
    line.anchor_monotonic = m1;
    line.anchor_ticks = t1;
    line.ticks_per_ns =
        m1 > m0 ? static_cast<double>(static_cast<int64_t>(t1 - t0)) / static_cast<double>(m1 - m0)
                : 1.0;
    // A clock of nanoseconds (gprof's own) keeps exact durations: an offset, no rate.
    if (line.ticks_per_ns > 0.999 && line.ticks_per_ns < 1.001) line.ticks_per_ns = 1.0;
    g_line.store(&line, std::memory_order_release);
  }
  g_callback.store(callback, std::memory_order_release);
}

}  // namespace gprof_fake_cupti
