// Hot-path timestamps (docs/architecture.md §2.1): the invariant TSC where the CPU has
// one (one instruction, no vDSO call), CLOCK_MONOTONIC otherwise. Hooks store
// raw ticks; the writer turns them into CLOCK_MONOTONIC nanoseconds with a
// TickConverter fed by calibration pairs taken at start, periodically and at
// exit, so that the file holds one clock whatever the hot path read.
#pragma once

#include <cstdint>

#include "collector/queues/clock.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace gprof {

enum class TimestampSource : uint8_t { kClockGettime = 0, kTsc = 1 };

// Chosen once by init_timestamps() in the preload constructor, before any
// thread can record; read-only afterwards.
extern __attribute__((visibility("hidden"))) TimestampSource g_timestamp_source;

inline uint64_t timestamp() {
#if defined(__x86_64__)
  if (__builtin_expect(g_timestamp_source == TimestampSource::kTsc, 1)) return __rdtsc();
#endif
  return clock_ns();
}

// The timestamp when the caller knows the source is the TSC (fast_record()).
inline uint64_t tsc_ticks() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return clock_ns();
#endif
}

// CPUID 0x80000007 EDX bit 8: the TSC runs at a constant rate in every
// P-, C- and T-state (Intel SDM vol. 3B §17.17.1; AMD APM vol. 3, CPUID).
bool cpu_has_invariant_tsc();

// Uses the TSC when `allow_tsc` and the CPU's TSC is invariant.
void init_timestamps(bool allow_tsc);
inline const char* timestamp_source_name(TimestampSource source) {
  return source == TimestampSource::kTsc ? "tsc" : "clock_gettime";
}

// One (ticks, CLOCK_MONOTONIC) pair. `uncertainty_ticks` is half the window
// of the two tick reads that bracket the clock read: the pair's error bound.
struct CalibrationPair {
  uint64_t ticks = 0;
  uint64_t ns = 0;
  uint64_t uncertainty_ticks = 0;
};

// The tightest of a few bracketed reads (a preempted read is discarded).
CalibrationPair take_calibration_pair();

// Writer side: ticks -> CLOCK_MONOTONIC ns, linear between neighbouring pairs
// (continuous at each pair), extrapolated beyond the last one with the last
// segment's rate. With clock_gettime as the source ticks are nanoseconds and
// the conversion is the identity. Not thread-safe: the writer owns it.
class TickConverter {
 public:
  explicit TickConverter(TimestampSource source = TimestampSource::kClockGettime)
      : source_(source) {}

  TimestampSource source() const { return source_; }
  // Pairs must come in time order; one too close to the previous (under
  // kMinSpacingNs) only refreshes the statistics, so that short segments do
  // not turn the pairs' jitter into a rate error.
  void add(const CalibrationPair& pair);
  uint64_t to_ns(uint64_t ticks) const;

  uint32_t pairs() const { return pairs_taken_; }
  double ticks_per_second() const;  // over the first and last pair; 0 before two
  uint64_t max_uncertainty_ns() const;
  // Largest distance of a pair from the line through the first and the last
  // pair: how far the TSC strayed from CLOCK_MONOTONIC (NTP slewing included).
  uint64_t max_residual_ns() const;

  // A rate exists: two pairs at least kMinFirstSpacingNs apart.
  bool ready() const { return source_ != TimestampSource::kTsc || count_ >= 2; }

  static constexpr uint64_t kMinSpacingNs = 10'000'000;
  // The first rate may come sooner, so that a short process gets one.
  static constexpr uint64_t kMinFirstSpacingNs = 1'000'000;

 private:
  struct Segment {
    uint64_t ticks = 0;
    uint64_t ns = 0;
    uint64_t ns_per_tick_q32 = 0;  // fixed point, 32 fraction bits
  };
  static constexpr int kHistory = 16;

  TimestampSource source_;
  CalibrationPair first_{};
  CalibrationPair last_{};
  // Recent pairs, oldest first; records of a late drain convert with the
  // segment their ticks fall in.
  Segment history_[kHistory] = {};
  int count_ = 0;
  uint32_t pairs_taken_ = 0;
  uint64_t max_uncertainty_ticks_ = 0;
  // Kept to compute residuals against the final line.
  CalibrationPair kept_[256] = {};
  uint32_t kept_count_ = 0;
};

}  // namespace gprof
