#include "collector/gpu/session/session.h"

namespace gprof::cupti_session {

// ---- The capture window switches the activity kinds ------------------------
//
// With GPROF_CAPTURE, GPROF_DELAY... CUPTI collects only while the window is
// open (issue 15 item 8): work issued while a kind is disabled makes no
// record at all (cupti_activity.h, cuptiActivityDisable), and records
// already collected are still delivered by the next flush (kineto relies on
// it: its stop disables the kinds, then flushes to collect,
// CuptiActivityApi::disableCuptiActivities, activityBuffers). So the thread
// that opens or closes the window (cudaProfilerStart/Stop, the push or pop of
// a capture range: rare calls, never the recording fast path; the writer for
// time windows) switches the kinds itself, at once: the launch right after an
// open has its record, and one right after a close has none. The writer's
// next poll flushes as usual. Work still arriving from calls outside the
// window is counted as such by the reports. While another tool holds CUPTI
// (a takeover) the window changes nothing; a resume brings the kinds back to
// what the window wants.

void Session::window_changed(bool open) {
  window_open_.store(open, std::memory_order_seq_cst);
  apply_window();
}

void Session::set_kinds(bool on) {
  for (size_t i = 0; i < sizeof kGpuKinds / sizeof kGpuKinds[0]; ++i) {
    if ((gpu_kinds_enabled_ & (1u << i)) == 0) continue;
    if (on)
      lib_.ActivityEnable(kGpuKinds[i].kind);
    else
      lib_.ActivityDisable(kGpuKinds[i].kind);
  }
  if (running_state_ == CuptiState::kExternalCorrelation) {
    for (const ActivityKind& k : kExternalKinds)
      on ? lib_.ActivityEnable(k.kind) : lib_.ActivityDisable(k.kind);
  }
}

void Session::apply_window() {
  for (;;) {
    // One thread switches at a time; one that finds it taken leaves its
    // change to the holder, which looks again below.
    if (applying_.exchange(true, std::memory_order_seq_cst)) return;
    const bool want = window_open_.load(std::memory_order_seq_cst);
    const bool can = !closed_.load(std::memory_order_acquire) &&
                     foreign_.load(std::memory_order_acquire) == 0 && !gap_open_.load();
    if (want != kinds_on_.load() && can) {
      set_kinds(want);
      kinds_on_.store(want, std::memory_order_seq_cst);
    }
    const bool settled = kinds_on_.load() == window_open_.load(std::memory_order_seq_cst);
    applying_.store(false, std::memory_order_seq_cst);
    if (settled || !can) return;
  }
}

void Session::enable_window_kinds(uint32_t mask) {
  for (size_t i = 0; i < sizeof kGpuKinds / sizeof kGpuKinds[0]; ++i)
    if (mask & (1u << i)) lib_.ActivityEnable(kGpuKinds[i].kind);
  if (running_state_ == CuptiState::kExternalCorrelation)
    for (const ActivityKind& k : kExternalKinds) lib_.ActivityEnable(k.kind);
}

bool Session::expecting_records() const {
  return active_.load(std::memory_order_acquire) && !closed_.load(std::memory_order_acquire) &&
         foreign_.load(std::memory_order_acquire) == 0 && !gap_open_.load() && kinds_on_ &&
         window_open_.load(std::memory_order_acquire);
}

}  // namespace gprof::cupti_session
