#include "collector/gpu/late_attach.h"

#include <atomic>

#include "collector/gpu/driver_probe.h"
#include "collector/process/capture_window.h"
#include "collector/process/process_state.h"

namespace gprof {
namespace {

std::atomic<void (*)()> g_attach{nullptr};
std::atomic<bool> g_injection_called{false};
// Writer-only state.
unsigned long long g_last_poll_ns = 0;
int g_running_polls = 0;
constexpr unsigned long long kPollIntervalNs = 100'000'000;

}  // namespace

void set_late_attach(void (*attach)()) {
  g_attach.store(attach, std::memory_order_release);
}

void note_injection_called() {
  g_injection_called.store(true, std::memory_order_release);
}

void poll_late_attach(unsigned long long now_ns) {
  void (*attach)() = g_attach.load(std::memory_order_acquire);
  if (!attach || g_injection_called.load(std::memory_order_acquire)) return;
  if (process_state().forked_child.load(std::memory_order_acquire) || !recording_enabled()) return;
  if (now_ns - g_last_poll_ns < kPollIntervalNs) return;
  g_last_poll_ns = now_ns;
  if (!cuda_running()) {
    g_running_polls = 0;
    return;
  }
  if (++g_running_polls < 2) return;
  g_attach.store(nullptr, std::memory_order_release);  // once
  attach();
}

}  // namespace gprof
