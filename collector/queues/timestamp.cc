#include "collector/queues/timestamp.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace gprof {

TimestampSource g_timestamp_source = TimestampSource::kClockGettime;

bool cpu_has_invariant_tsc() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  // GCC's cpuid.h returns unsigned, clang's int.
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000007u) return false;
  if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return false;
  return (d & (1u << 8)) != 0;
#else
  return false;
#endif
}

void init_timestamps(bool allow_tsc) {
  g_timestamp_source =
      allow_tsc && cpu_has_invariant_tsc() ? TimestampSource::kTsc : TimestampSource::kClockGettime;
}

CalibrationPair take_calibration_pair() {
  CalibrationPair best;
  if (g_timestamp_source != TimestampSource::kTsc) {
    best.ns = clock_ns();
    best.ticks = best.ns;
    return best;
  }
  best.uncertainty_ticks = UINT64_MAX;
  for (int attempt = 0; attempt < 7; ++attempt) {
    const uint64_t before = timestamp();
    const uint64_t ns = clock_ns();
    const uint64_t after = timestamp();
    // Ticks, not ns, until a rate is known; the converter rescales.
    const uint64_t window = after - before;
    if (window < best.uncertainty_ticks) {
      best.ticks = before + window / 2;
      best.ns = ns;
      best.uncertainty_ticks = window;
    }
  }
  best.uncertainty_ticks = (best.uncertainty_ticks + 1) / 2;
  return best;
}

namespace {

__extension__ typedef unsigned __int128 u128;

uint64_t rate_q32(const CalibrationPair& a, const CalibrationPair& b) {
  const uint64_t dt = b.ticks - a.ticks;
  if (b.ticks <= a.ticks || b.ns <= a.ns) return 1ull << 32;
  return static_cast<uint64_t>((static_cast<u128>(b.ns - a.ns) << 32) / dt);
}

// ns of `ticks` on the line through (base_ticks, base_ns) with `rate`.
uint64_t along(uint64_t base_ticks, uint64_t base_ns, uint64_t rate, uint64_t ticks) {
  if (ticks >= base_ticks) {
    const auto d = static_cast<u128>(ticks - base_ticks) * rate;
    return base_ns + static_cast<uint64_t>(d >> 32);
  }
  const auto d = static_cast<uint64_t>((static_cast<u128>(base_ticks - ticks) * rate) >> 32);
  return d < base_ns ? base_ns - d : 0;
}

}  // namespace

void TickConverter::add(const CalibrationPair& pair) {
  ++pairs_taken_;
  if (pair.uncertainty_ticks > max_uncertainty_ticks_)
    max_uncertainty_ticks_ = pair.uncertainty_ticks;
  if (source_ != TimestampSource::kTsc) return;
  if (pairs_taken_ == 1) first_ = pair;
  if (count_ > 0) {
    const Segment& newest = history_[count_ - 1];
    const uint64_t spacing = count_ == 1 ? kMinFirstSpacingNs : kMinSpacingNs;
    if (pair.ticks <= newest.ticks || pair.ns < newest.ns + spacing) return;
  }
  last_ = pair;
  if (kept_count_ == sizeof kept_ / sizeof kept_[0]) {
    // Keep every other pair: residuals still cover the whole run.
    for (uint32_t i = 0; i < kept_count_ / 2; ++i) kept_[i] = kept_[2 * i + 1];
    kept_count_ /= 2;
  }
  kept_[kept_count_++] = pair;
  if (count_ == kHistory) {
    for (int i = 1; i < kHistory; ++i) history_[i - 1] = history_[i];
    --count_;
  }
  Segment s;
  s.ticks = pair.ticks;
  s.ns = pair.ns;
  if (count_ > 0) {
    const Segment& prev = history_[count_ - 1];
    CalibrationPair a{prev.ticks, prev.ns, 0};
    s.ns_per_tick_q32 = rate_q32(a, pair);
  }
  history_[count_++] = s;
  if (count_ == 2) history_[0].ns_per_tick_q32 = history_[1].ns_per_tick_q32;
}

uint64_t TickConverter::to_ns(uint64_t ticks) const {
  if (source_ != TimestampSource::kTsc || count_ == 0) return ticks;
  if (count_ == 1) {
    // One pair and no rate yet: assume 1 GHz rather than invent a rate.
    return along(history_[0].ticks, history_[0].ns, 1ull << 32, ticks);
  }
  int i = count_ - 1;
  while (i > 0 && history_[i].ticks > ticks) --i;
  if (history_[i].ticks > ticks || i == count_ - 1) {
    // Before the oldest kept pair, or after the newest: extend its segment.
    return along(history_[i].ticks, history_[i].ns, history_[i].ns_per_tick_q32, ticks);
  }
  return along(history_[i].ticks, history_[i].ns, history_[i + 1].ns_per_tick_q32, ticks);
}

uint64_t TickConverter::max_uncertainty_ns() const {
  const double hz = ticks_per_second();
  if (source_ != TimestampSource::kTsc) return max_uncertainty_ticks_;
  return hz > 0
             ? static_cast<uint64_t>(static_cast<double>(max_uncertainty_ticks_) * 1e9 / hz + 0.5)
             : 0;
}

double TickConverter::ticks_per_second() const {
  if (source_ != TimestampSource::kTsc || last_.ns <= first_.ns) return 0;
  return static_cast<double>(last_.ticks - first_.ticks) * 1e9 /
         static_cast<double>(last_.ns - first_.ns);
}

uint64_t TickConverter::max_residual_ns() const {
  if (source_ != TimestampSource::kTsc || last_.ns <= first_.ns) return 0;
  const uint64_t rate = rate_q32(first_, last_);
  uint64_t worst = 0;
  for (uint32_t i = 0; i < kept_count_; ++i) {
    const uint64_t predicted = along(first_.ticks, first_.ns, rate, kept_[i].ticks);
    const uint64_t d = predicted > kept_[i].ns ? predicted - kept_[i].ns : kept_[i].ns - predicted;
    if (d > worst) worst = d;
  }
  return worst;
}

}  // namespace gprof
