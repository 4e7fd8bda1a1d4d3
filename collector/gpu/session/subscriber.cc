#include "collector/gpu/session/session.h"

#include "collector/process/log.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"

namespace gprof::cupti_session {

// ---- Another tool asks for the subscriber (docs/architecture.md §3.4) ------------------
//
// torch.profiler's kineto subscribes before it sets up activity collection
// (libkineto/src/CuptiCallbackApi.cpp initCallbackApi, cuptiSubscribe; then
// cuptiEnableCallback(RESOURCE, CONTEXT_DESTROY_STARTING)), and only one
// subscriber is allowed (observed: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_-
// SUPPORTED to a second cuptiSubscribe; test/fakes/observed/). Refused, it
// prints "CUPTI initialization failed - CUDA profiler activities will be
// missing" and the user's profiler gets no GPU event (seen with torch 2.11
// under gprof). The user asked for that tool: gprof gives the slot up. Its
// GPU records keep coming, paired with the calls it interposes through
// external correlation ids, as when a tool held the slot from the start; the
// calls only callbacks see (a static runtime, the driver API) are not seen
// until the other tool unsubscribes (kineto never does: observed, torch 2.11,
// it makes no cuptiUnsubscribe or cuptiFinalize in a process's life), and its
// activity takeover is recorded as any other (check_takeover).

void Session::yield_subscriber() {
  // A finalize took gprof's subscriber already.
  if (finalized_.load(std::memory_order_acquire)) return;
  // Once per hand-over, by whichever thread moves the state first.
  CuptiState subscribed = CuptiState::kSubscribed;
  if (!running_state_.compare_exchange_strong(subscribed, CuptiState::kExternalCorrelation,
                                              std::memory_order_acq_rel))
    return;
  // Pairing by pushed ids first: the kinds that carry them, then the hooks,
  // so that the first call that pushes an id has its records.
  if (kinds_on_.load() && !gap_open_.load())
    for (const ActivityKind& k : kExternalKinds) lib_.ActivityEnable(k.kind);
  process_state().external_correlation.store(true, std::memory_order_release);
  refresh_fast_launch();
  lib_.Unsubscribe(subscriber_);
  subscriber_ = nullptr;
  yielded_.store(true, std::memory_order_release);
  if (sem_t* wake = process_state().writer_wake.load(std::memory_order_acquire)) sem_post(wake);
}

void Session::check_subscriber() {
  if (!yielded_.load(std::memory_order_acquire)) return;
  if (!yield_told_.exchange(true, std::memory_order_acq_rel)) {
    status().set_reason(
        "CUPTI's subscriber given up to another tool that asked for it (torch.profiler?); "
        "calls paired through external correlation ids since, calls through a static runtime "
        "or the driver API not seen");
    if (!gap_open_) status().set_state(CuptiState::kExternalCorrelation);
    status().publish();
    GPROF_WARN(
        "another tool asked for CUPTI's subscriber (torch.profiler?): gprof gave it up; GPU "
        "activity is paired through external correlation ids from now on, and calls made "
        "through a static runtime or the driver API are not seen until that tool unsubscribes");
  }
  if (!foreign_unsubscribed_.load(std::memory_order_acquire) || gap_open_ ||
      closed_.load(std::memory_order_acquire))
    return;
  foreign_unsubscribed_.store(false, std::memory_order_release);
  other_subscriber_[0] = '\0';
  if (subscribe(setup_) != Subscription::kOwned) return;  // someone else has it now
  process_state().external_correlation.store(false, std::memory_order_release);
  refresh_fast_launch();
  running_state_.store(CuptiState::kSubscribed, std::memory_order_release);
  if (kinds_on_.load())
    for (const ActivityKind& k : kExternalKinds) lib_.ActivityDisable(k.kind);
  yielded_.store(false, std::memory_order_release);
  yield_told_.store(false, std::memory_order_release);
  status().set_reason("%s", "");
  status().set_state(CuptiState::kSubscribed);
  status().publish();
  GPROF_INFO("CUPTI: the other tool unsubscribed; gprof's subscriber is back");
}

}  // namespace gprof::cupti_session
