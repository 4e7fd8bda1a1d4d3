#include "timestamps.h"

#include <ctime>

#include <atomic>

#include "config.h"

namespace gprof_fake_cupti {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

std::atomic<CUpti_TimestampCallbackFunc> g_callback{nullptr};
std::atomic<int64_t> g_callback_offset_ns{0};

}  // namespace

int64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

uint64_t ToCuptiTime(int64_t monotonic_ns) {
  const int64_t offset = g_callback.load(std::memory_order_acquire) != nullptr
                             ? g_callback_offset_ns.load(std::memory_order_relaxed)
                             : GetConfig().clock_offset_ns;
  return static_cast<uint64_t>(monotonic_ns + offset);
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
    // The offset between the two clocks, sampled around one callback call so that the sampling
    // error stays within half of the call's duration.
    const int64_t before = MonotonicNs();
    const int64_t theirs = static_cast<int64_t>(callback());
    const int64_t after = MonotonicNs();
    g_callback_offset_ns.store(theirs - (before + (after - before) / 2), std::memory_order_relaxed);
  }
  g_callback.store(callback, std::memory_order_release);
}

}  // namespace gprof_fake_cupti
