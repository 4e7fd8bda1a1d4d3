#include "clock.h"

#include <cerrno>
#include <ctime>
#include <thread>

namespace gprof_fake {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;
// Below this much remaining time the thread spins instead of sleeping.
constexpr int64_t kSpinNs = 200'000;

timespec ToTimespec(int64_t ns) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / kNsPerSecond);
  ts.tv_nsec = static_cast<long>(ns % kNsPerSecond);
  return ts;
}

}  // namespace

int64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSecond + ts.tv_nsec;
}

void SleepUntil(int64_t deadline_ns) {
  if (deadline_ns - NowNs() > kSpinNs) {
    const timespec wake = ToTimespec(deadline_ns - kSpinNs);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nullptr) == EINTR) {
    }
  }
  while (NowNs() < deadline_ns) std::this_thread::yield();
}

}  // namespace gprof_fake
