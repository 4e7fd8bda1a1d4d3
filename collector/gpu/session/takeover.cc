// Another tool takes CUPTI's activity API over, seen by gprof's hooks or by
// the watchdog: the gap it opens in the file, and the resume after it.
#include "collector/gpu/session/session.h"

#include <dlfcn.h>
#include <sched.h>

#include <cstdio>

#include "collector/process/log.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/clock.h"

namespace gprof::cupti_session {

void Session::calls_drained(const TakeoverWatchdog::Calls& calls) {
  if (!expecting_records()) {
    watchdog_.reset();
    return;
  }
  watchdog_.calls(calls);
}

// ---- Takeover unseen: the watchdog ------------------------------------------
//
// When gprof was not preloaded, or the other tool calls CUPTI through its own
// dlopen handle, inject/hooks_cupti.cc sees nothing; the records just stop.
// The watchdog (takeover_watchdog.h) finds that out from the calls the
// writer drains and the flushes that bring nothing. The interval is recorded
// as any other, but never resumed: gprof cannot see when that tool stops,
// and registering its buffer callbacks while the tool is running would take
// its buffers (docs/architecture.md §3.4: never break the other tool).

void Session::check_watchdog(uint64_t now_ns, GpuSink& sink) {
  if (!expecting_records() || !watchdog_.stopped(now_ns)) return;
  uint64_t zero = 0;
  foreign_start_ns_.compare_exchange_strong(zero, watchdog_.since_ns());
  foreign_.fetch_or(kForeignUnseen, std::memory_order_acq_rel);
  open_gap(kForeignUnseen, sink);
  status().close_gap(0, gpu_read_, "not resumed: gprof cannot see when that tool stops");
  status().publish();
  gap_flags_ = kForeignUnseen;
  watchdog_.reset();
}

// ---- Another tool takes CUPTI over (docs/architecture.md §3.4) ------------------------
//
// kineto (torch.profiler) started while gprof holds CUPTI does, in order
// (libkineto/src/CuptiActivityProfiler.cpp enableGpuTracing, CuptiTimestamp.cpp
// configureCuptiTimestampSource, CuptiActivityApi.cpp enableCuptiActivities):
// cuptiActivityRegisterTimestampCallback(its clock), cuptiActivityRegister-
// Callbacks(its buffers), cuptiActivityEnable(its kinds); at its stop
// (disableCuptiActivities) cuptiActivityDisable of each kind it enabled, then
// cuptiActivityFlushAll(FORCED) to collect its buffers (activityBuffers), and
// with TEARDOWN_CUPTI=1 cuptiFinalize. CUPTI's activity API is process-wide
// before 13.2, so from its RegisterCallbacks on every record goes to its
// buffers, and after its Disable no record is made at all.
//
// inject/hooks_cupti.cc sees these calls (the preload interposes CUPTI's
// exported entry points) and reports them here; the writer opens an interval
// in the file, and resumes when it is safe:
//   - not while the other tool's GPU kinds are enabled (its session runs);
//   - only once its calls have been quiet for kResumeQuietNs (its stop is a
//     sequence of calls, and its collecting flush follows its Disables);
//   - first a FlushAll, which completes every buffer CUPTI holds into the
//     other tool's callbacks (still registered), so that none of its buffers
//     is ever completed to gprof, and none of its records lost;
//   - after a cuptiFinalize by the other tool, which undoes gprof's setup
//     too (subscriber, buffer callbacks, kinds, clock) and completes none of
//     the buffers CUPTI held (observed, CUPTI 13.0.1): CUPTI is set up again
//     as at the start (set_up_again). A tool that subscribes later (kineto
//     takes its slot back after a finalize, CuptiActivityApi.cpp
//     reenableCuptiCallbacks_) gets it, as the first time (yield_subscriber);
//   - never replacing the other tool's timestamp callback: its later records
//     would be on gprof's clock. gprof adopts that clock instead (the offset
//     to the recording clock, sampled by calling the other tool's callback).
// A resume re-registers gprof's buffer callbacks and re-enables its kinds.

constexpr uint64_t kResumeQuietNs = 100'000'000;

int gpu_kind_index(CUpti_ActivityKind kind) {
  for (size_t i = 0; i < sizeof kGpuKinds / sizeof kGpuKinds[0]; ++i)
    if (kGpuKinds[i].kind == kind) return static_cast<int>(i);
  if (kind == CUPTI_ACTIVITY_KIND_KERNEL) return 0;
  return -1;
}

void Session::foreign_before(ForeignCall call, CUpti_TimestampCallbackFunc clock) {
  if (!active_.load(std::memory_order_acquire) || closed_.load(std::memory_order_acquire)) return;
  if (call == ForeignCall::kSubscribe) return yield_subscriber();
  foreign_seq_.fetch_add(1, std::memory_order_acq_rel);
  if (call == ForeignCall::kRegisterCallbacks || call == ForeignCall::kTimestampCallback ||
      call == ForeignCall::kFinalize) {
    // Hand-off: what gprof's buffers hold now is completed to gprof while its
    // callbacks are still registered (otherwise CUPTI completes gprof's
    // buffers into the other tool's callback, and both lose them), and on
    // the clock gprof knows.
    if ((foreign_.load(std::memory_order_acquire) & kForeignBuffers) == 0) lib_.ActivityFlushAll(0);
  }
  if (call == ForeignCall::kTimestampCallback && clock != nullptr) {
    // The first reading of its clock: the resume fits a line through this
    // and one of its own (fit_foreign_clock).
    uint64_t tick = 0, ns = 0, uncertainty = 0;
    if (sample_pair(clock, tick, ns, uncertainty)) {
      foreign_anchor_ns_.store(0, std::memory_order_release);
      foreign_anchor_tick_.store(tick, std::memory_order_release);
      foreign_anchor_ns_.store(ns, std::memory_order_release);
    }
    foreign_clock_.store(clock, std::memory_order_release);
  }
}

void Session::foreign_after(ForeignCall call, CUptiResult result, CUpti_ActivityKind kind) {
  if (!active_.load(std::memory_order_acquire) || closed_.load(std::memory_order_acquire)) return;
  if (call == ForeignCall::kSubscribe) return;
  if (call == ForeignCall::kUnsubscribe) {
    if (result == CUPTI_SUCCESS && yielded_.load(std::memory_order_acquire)) {
      foreign_unsubscribed_.store(true, std::memory_order_release);
      if (sem_t* wake = process_state().writer_wake.load(std::memory_order_acquire)) sem_post(wake);
    }
    return;
  }
  const uint64_t now = clock_ns();
  foreign_last_ns_.store(now, std::memory_order_release);
  foreign_seq_.fetch_add(1, std::memory_order_acq_rel);
  if (result != CUPTI_SUCCESS) return;
  uint32_t bits = 0;
  switch (call) {
    case ForeignCall::kRegisterCallbacks:
      bits = kForeignBuffers;
      break;
    case ForeignCall::kTimestampCallback:
      bits = kForeignClock;
      break;
    case ForeignCall::kFinalize:
      finalized_.store(true, std::memory_order_release);
      bits = kForeignFinalized;
      break;
    case ForeignCall::kEnable:
      if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL)
        bits = kForeignKernels;
      break;
    case ForeignCall::kSubscribe:
    case ForeignCall::kUnsubscribe:
      break;
    case ForeignCall::kDisable:
      if (const int i = gpu_kind_index(kind); i >= 0) {
        disabled_.fetch_or(1u << i, std::memory_order_acq_rel);
        bits = kForeignDisabled;
      }
      if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        foreign_.fetch_and(~kForeignKernels, std::memory_order_acq_rel);
      }
      break;
  }
  if (bits == 0) return;
  uint64_t zero = 0;
  if (bits != kForeignKernels) foreign_start_ns_.compare_exchange_strong(zero, now);
  foreign_.fetch_or(bits, std::memory_order_acq_rel);
  if (sem_t* wake = process_state().writer_wake.load(std::memory_order_acquire)) sem_post(wake);
}

void Session::open_gap(uint32_t flags, GpuSink& sink) {
  drain_now(sink);  // what the hand-off flush completed counts as before
  char reason[256];
  const char* other = other_subscriber_[0] ? other_subscriber_ : "another tool";
  if (flags & kForeignUnseen) {
    snprintf(reason, sizeof reason,
             "no GPU record for %llu launches and a wait (watchdog: a tool unseen by gprof took "
             "CUPTI's buffer callbacks or kinds, e.g. through its own dlopen handle)",
             static_cast<unsigned long long>(watchdog_.launches()));
  } else if (flags & kForeignFinalized) {
    snprintf(reason, sizeof reason, "cuptiFinalize by %s", other);
  } else if (flags & kForeignBuffers) {
    snprintf(reason, sizeof reason,
             "cuptiActivityRegisterCallbacks by %s (its buffer callbacks replaced gprof's)", other);
  } else {
    snprintf(reason, sizeof reason, "cuptiActivityDisable by %s (gprof's activity kinds off)",
             other);
  }
  const uint64_t start = foreign_start_ns_.load(std::memory_order_acquire);
  status().open_gap(
      start, reason, gpu_read_,
      (flags & kForeignClock) != 0 || foreign_clock_.load(std::memory_order_acquire) != nullptr);
  status().set_state(CuptiState::kTakenOver);
  status().publish();
  gap_open_ = true;
  GPROF_WARN("%s: gprof's GPU records stop here; the interval is recorded in the file", reason);
}

bool Session::try_resume(GpuSink& sink) {
  // The other tool's calls counted first: one made after this, while the
  // resume is under way, calls it off below; one made before is in the flags
  // and the time of its last call.
  const uint64_t seq = foreign_seq_.load(std::memory_order_acquire);
  const uint32_t flags = foreign_.load(std::memory_order_acquire);
  if (flags & (kForeignKernels | kForeignUnseen)) return false;
  if ((flags & kForeignFinalized) && setup_failed_) return false;
  // The time now, not the pass's: the other tool may have called after the
  // pass began, and an older time less a newer call wrapped into "quiet for
  // ages" (seen on an H100: gprof took torch.profiler's buffers back 0.2 ms
  // into its session, between its cuptiActivityRegisterCallbacks and its
  // cuptiActivityEnable(CONCURRENT_KERNEL)).
  if (clock_ns() < foreign_last_ns_.load(std::memory_order_acquire) + kResumeQuietNs) return false;
  if (flags & kForeignFinalized) return set_up_again(sink);
  // Its stop is over, and its buffers too (below). Back: buffers, then kinds.
  if (!call_into_cuda(
          sink, [](void* self) { static_cast<Session*>(self)->lib_.ActivityFlushAll(0); }, this))
    return false;
  drain_now(sink);  // anything still ours, on the old clock
  if (foreign_seq_.load(std::memory_order_acquire) != seq) return false;  // it is back
  if (CUpti_TimestampCallbackFunc clock = foreign_clock_.load(std::memory_order_acquire))
    fit_foreign_clock(clock);
  if (flags & kForeignBuffers) {
    if (lib_.ActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS)
      return false;
  }
  // The kinds as the capture window wants them now; a window opening
  // meanwhile waits (applying_ held, briefly: it only calls Enable).
  while (applying_.exchange(true, std::memory_order_seq_cst)) sched_yield();
  const uint32_t disabled = disabled_.exchange(0, std::memory_order_acq_rel);
  const bool open = window_open_.load(std::memory_order_seq_cst);
  // All of them after a buffer takeover: the other tool may have disabled
  // one gprof uses through an API this build does not watch.
  if (open) enable_window_kinds((flags & kForeignBuffers) || !kinds_on_.load() ? ~0u : disabled);
  if (!open && kinds_on_.load()) set_kinds(false);  // the other tool may not have disabled all
  kinds_on_.store(open, std::memory_order_seq_cst);
  foreign_.fetch_and(~flags, std::memory_order_acq_rel);
  foreign_start_ns_.store(0, std::memory_order_release);
  char how[200];
  if (foreign_clock_.load(std::memory_order_acquire) == nullptr) {
    snprintf(how, sizeof how, "resumed after the other tool stopped");
  } else if (!clock_map_.linear()) {
    snprintf(how, sizeof how,
             "resumed after the other tool stopped (on its clock, offset sampled)");
  } else {
    snprintf(how, sizeof how,
             "resumed after the other tool stopped (on its clock, which counts %.4f ticks a "
             "nanosecond: mapped through two readings)",
             1.0 / clock_map_.ns_per_tick());
  }
  end_gap(how);
  GPROF_INFO("CUPTI: gprof's activity buffers and kinds are back");
  return true;
}

// After another tool's cuptiFinalize (quiet since, its kinds off): what
// start() did, on the writer thread. The records of the launches made in
// between are lost; those after are paired again.
bool Session::set_up_again(GpuSink& sink) {
  drain_now(sink);  // what was completed before the finalize
  buffers_.reclaim_from_finalized_cupti();
  subscriber_ = nullptr;
  other_subscriber_[0] = '\0';
  const Subscription subscription = subscribe(setup_);
  const auto give_up = [&] {
    setup_failed_ = true;
    char how[600];
    snprintf(how, sizeof how, "not resumed: %s", why_);
    status().close_gap(0, gpu_read_, how);
    status().publish();
    GPROF_WARN("CUPTI cannot be set up again after the other tool's cuptiFinalize: %s", why_);
    return false;
  };
  if (subscription == Subscription::kFailed) return give_up();
  // The finalize dropped every timestamp callback, the other tool's too.
  foreign_clock_.store(nullptr, std::memory_order_release);
  if (!align_clock(subscription == Subscription::kOwned)) {
    snprintf(why_, sizeof why_, "%s", "CUPTI has no clock");
    return give_up();
  }
  request_buffer_mode(process_config());
  if (const CUptiResult r = lib_.ActivityRegisterCallbacks(buffer_requested, buffer_completed);
      r != CUPTI_SUCCESS) {
    snprintf(why_, sizeof why_, "cuptiActivityRegisterCallbacks: %s", lib_.describe(r));
    return give_up();
  }
  running_state_.store(subscription == Subscription::kOwned ? CuptiState::kSubscribed
                                                            : CuptiState::kExternalCorrelation,
                       std::memory_order_release);
  process_state().external_correlation.store(subscription == Subscription::kTaken,
                                             std::memory_order_release);
  refresh_fast_launch();
  while (applying_.exchange(true, std::memory_order_seq_cst)) sched_yield();
  const bool open = window_open_.load(std::memory_order_seq_cst);
  if (open) enable_window_kinds(gpu_kinds_enabled_);  // external mode: set above when kTaken
  kinds_on_.store(open, std::memory_order_seq_cst);
  disabled_.store(0, std::memory_order_release);
  foreign_.store(0, std::memory_order_release);
  foreign_start_ns_.store(0, std::memory_order_release);
  yielded_.store(false, std::memory_order_release);
  yield_told_.store(false, std::memory_order_release);
  foreign_unsubscribed_.store(false, std::memory_order_release);
  finalized_.store(false, std::memory_order_release);
  gap_flags_ = 0;
  finalize_end_told_ = false;
  status().set_reason("%s", "");
  end_gap(subscription == Subscription::kOwned
              ? "resumed: gprof set CUPTI up again"
              : "resumed: gprof set CUPTI up again, paired through external "
                "correlation ids (another tool holds the subscriber)");
  GPROF_INFO("CUPTI: set up again after the other tool's cuptiFinalize");
  return true;
}

void Session::end_gap(const char* how) {
  status().close_gap(clock_ns(), gpu_read_, how);
  status().set_state(running_state_.load());
  status().publish();
  gap_open_ = false;
  applying_.store(false, std::memory_order_seq_cst);
  watchdog_.reset();
}

void Session::check_takeover(GpuSink& sink) {
  check_subscriber();
  // Closed (the process exits): a stop the writer has not handled yet, such
  // as a cuptiFinalize just before exit, is still recorded; nothing that
  // calls into CUPTI or the other tool (a resume, its clock) runs any more.
  const bool closed = closed_.load(std::memory_order_acquire);
  const uint32_t flags = foreign_.load(std::memory_order_acquire);
  if (flags == 0) return;
  constexpr uint32_t kStops = kForeignBuffers | kForeignDisabled | kForeignFinalized;
  if (!gap_open_) {
    if ((flags & kStops) == 0) {
      if (closed) return;
      if (flags & kForeignClock) {
        // Only its clock: gprof's records keep coming, on that clock from now.
        drain_now(sink);
        if (CUpti_TimestampCallbackFunc clock = foreign_clock_.load(std::memory_order_acquire)) {
          if (fit_foreign_clock(clock)) status().publish();
        }
        foreign_.fetch_and(~kForeignClock, std::memory_order_acq_rel);
      }
      return;
    }
    open_gap(flags, sink);
  } else if ((flags & kForeignFinalized) && (gap_flags_ & kForeignFinalized) == 0) {
    status().close_gap(0, gpu_read_, "then cuptiFinalize");  // still open
    status().publish();
  }
  gap_flags_ = flags;
  if (!closed) {
    try_resume(sink);
  } else if ((flags & kForeignFinalized) && gap_open_ && !finalize_end_told_) {
    finalize_end_told_ = true;
    status().close_gap(0, gpu_read_, "not resumed: the process ended first");
    status().publish();
  }
}

uint64_t Session::push_external() {
  const uint64_t id = next_external_.fetch_add(1, std::memory_order_relaxed);
  lib_.ActivityPushExternalCorrelationId(kGprofExternalKind, id);
  return id;
}

void Session::pop_external() {
  uint64_t last = 0;
  lib_.ActivityPopExternalCorrelationId(kGprofExternalKind, &last);
}

}  // namespace gprof::cupti_session
