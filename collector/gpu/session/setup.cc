// Setting CUPTI up at the start (and again after another tool's
// cuptiFinalize, takeover.cc): library, subscriber, clock, buffer mode, kinds.
#include "collector/gpu/session/session.h"

#include <cstdio>
#include <ctime>

#include "collector/process/capture_window.h"
#include "collector/process/log.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/clock.h"

namespace gprof::cupti_session {

// Whether gprof's interposed CUPTI entry points (inject/hooks_cupti.cc) saw
// another tool register activity buffers before the session started: with
// cuptiSubscribe's answer, the only evidence of another tool that holds on
// the real library. cuptiActivityFlushAll's answer is not:
// cupti_activity.h documents CUPTI_ERROR_INVALID_OPERATION before any buffer
// callbacks are registered, the fake answered so, and on real GPUs CUPTI
// 13.0.1 answered CUPTI_SUCCESS (H200, driver 580.159.04, and H100, same
// driver, 2026-11-27: test/fakes/observed/), which turned every real run
// CPU-only. A cuptiFinalize forgets the buffers, as CUPTI does.
constinit std::atomic<bool> g_foreign_buffers{false};

uint64_t CUPTIAPI recording_clock() {
  return clock_ns();
}

CuptiStatus& status() {
  return process_state().cupti;
}

// GPROF_CUPTI_CALLBACKS: whether the callbacks of `domain` are enabled.
bool callbacks_wanted(uint32_t domains, CUpti_CallbackDomain domain) {
  switch (domain) {
    case CUPTI_CB_DOMAIN_RUNTIME_API:
      return (domains & kCuptiCallbacksRuntime) != 0;
    case CUPTI_CB_DOMAIN_DRIVER_API:
      return (domains & kCuptiCallbacksDriver) != 0;
    default:
      return true;
  }
}

void Session::cpu_only(const char* format, const char* detail) {
  status().set_state(CuptiState::kCpuOnly);
  status().set_reason(format, detail);
  status().publish();
  char line[600];
  snprintf(line, sizeof line, format, detail);
  GPROF_WARN("%s; GPU activity is not recorded, CPU-side calls are", line);
}

bool Session::sample_pair(CUpti_TimestampCallbackFunc clock, uint64_t& tick, uint64_t& ns,
                          uint64_t& uncertainty) {
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 16; ++i) {
    const uint64_t before = clock_ns();
    uint64_t cupti = 0;
    if (clock != nullptr) {
      cupti = clock();
    } else if (lib_.GetTimestamp(&cupti) != CUPTI_SUCCESS) {
      return false;
    }
    const uint64_t after = clock_ns();
    if (after - before < best_gap) {
      best_gap = after - before;
      tick = cupti;
      ns = before + (after - before) / 2;
    }
  }
  uncertainty = best_gap / 2;
  return true;
}

bool Session::fit_foreign_clock(CUpti_TimestampCallbackFunc clock) {
  // Far enough apart that the readings' error (tens of nanoseconds) is a
  // millionth of the span or less.
  constexpr uint64_t kSpanNs = 50'000'000;
  uint64_t tick0 = foreign_anchor_tick_.load(std::memory_order_acquire);
  uint64_t ns0 = foreign_anchor_ns_.load(std::memory_order_acquire);
  uint64_t tick1 = 0, ns1 = 0, uncertainty = 0;
  if (!sample_pair(clock, tick1, ns1, uncertainty)) return false;
  if (ns0 == 0 || ns1 < ns0 + kSpanNs) {
    // No reading from its registration, or too recent: two now (the writer
    // waits once per takeover).
    tick0 = tick1;
    ns0 = ns1;
    const timespec wait{0, static_cast<long>(kSpanNs)};
    nanosleep(&wait, nullptr);
    if (!sample_pair(clock, tick1, ns1, uncertainty)) return false;
  }
  clock_map_ = ClockMap::fitted(tick0, ns0, tick1, ns1);
  status().set_clock(false, clock_map_.offset_ns(), uncertainty);
  return true;
}

// Must precede any cuptiActivityEnable (docs/architecture.md §3.5). The timestamp callback
// is process-wide: registering ours when another tool is there would put its
// records on our clock (kineto registers its own, CuptiTimestamp.cpp), so it
// is only registered when gprof found no other tool (`register_callback`);
// otherwise the offset to CUPTI's clock is sampled.
bool Session::align_clock(bool register_callback) {
  if (register_callback && process_config().cupti_timestamp_callback &&
      lib_.ActivityRegisterTimestampCallback(recording_clock) == CUPTI_SUCCESS) {
    clock_map_ = ClockMap(0);
    status().set_clock(true, 0, 0);
    return true;
  }
  // CUPTI's own clock counts nanoseconds (observed: test/fakes/observed/).
  uint64_t tick = 0, ns = 0, uncertainty = 0;
  if (!sample_pair(nullptr, tick, ns, uncertainty)) return false;
  clock_map_ = ClockMap(static_cast<int64_t>(tick) - static_cast<int64_t>(ns));
  status().set_clock(false, clock_map_.offset_ns(), uncertainty);
  return true;
}

Session::Subscription Session::subscribe(const CuptiSetup& setup) {
  CUptiResult result;
  if (lib_.SubscribeV2) {
    CUpti_SubscriberParams params{};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "gprof";
    params.oldSubscriberName = other_subscriber_;
    params.oldSubscriberSize = sizeof other_subscriber_ - 1;
    result = lib_.SubscribeV2(&subscriber_, setup.handler, nullptr, &params);
  } else {
    result = lib_.Subscribe(&subscriber_, setup.handler, nullptr);
  }
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) return Subscription::kTaken;
  if (result != CUPTI_SUCCESS) {
    snprintf(why_, sizeof why_, "cuptiSubscribe: %s", lib_.describe(result));
    return Subscription::kFailed;
  }
  const uint32_t domains = process_config().cupti_callbacks;
  for (size_t s = 0; s < setup.callback_sets; ++s) {
    const CallbackIds& set = setup.callbacks[s];
    if (!callbacks_wanted(domains, set.domain)) continue;
    for (size_t i = 0; i < set.count; ++i)
      lib_.EnableCallback(1, subscriber_, set.domain, set.ids[i]);
  }
  return Subscription::kOwned;
}

bool Session::enable_kinds(const ActivityKind* kinds, size_t count, uint32_t* enabled,
                           uint32_t asked) {
  for (size_t i = 0; i < count; ++i) {
    if (kinds[i].asked_by != 0 && (asked & kinds[i].asked_by) == 0) continue;
    const CUptiResult result = lib_.ActivityEnable(kinds[i].kind);
    if (result == CUPTI_SUCCESS) {
      if (enabled != nullptr) *enabled |= 1u << i;
      status().add_kind(kinds[i].name);
    } else if (kinds[i].required) {
      snprintf(why_, sizeof why_, "cuptiActivityEnable(%s): %s", kinds[i].name,
               lib_.describe(result));
      return false;
    } else {
      GPROF_INFO("CUPTI activity kind %s unavailable: %s", kinds[i].name, lib_.describe(result));
    }
  }
  return true;
}

// CUPTI 13 fills an activity buffer per thread that makes records by default
// (cupti_activity.h, CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, "The
// default value is 1"), each held partly filled until it is full or flushed:
// a program with more launching threads than the pool may grow to (64 with
// the defaults) would have its records dropped, and one buffer per thread is
// memory the host never asked for. gprof asks for the process-wide buffers
// unless GPROF_CUPTI_PER_THREAD_BUFFERS=1: per-thread buffers spare launching
// threads contention on one buffer (kineto moved to them for overhead). On an
// H200 (driver 580.159.04, CUPTI 13.0.1, 2026-11-29) they cost less on the
// overhead ladder's 200k-launch burst, by too little to outweigh the above
// yet: 7,058 against 7,286 ns a launch (median of 4 processes each; one
// process each: 5,610 against 7,856), and the probe's launch_cost put them
// 342 ns cheaper there but 1,110 ns dearer on an H100 (2026-11-27). With
// them on, a request at the pool's cap takes a buffer past it (buffers.cc),
// so many launching threads take memory past GPROF_MAX_MEMORY's share, up to
// kMaxBuffers. Both must be set before the buffer callbacks are
// registered and before any kind is enabled. A CUPTI without the attribute
// keeps its own mode, and the pool still grows to its cap.
//
// CUPTI zeroes each buffer it is handed on the thread that asked for it
// unless told the buffers come zeroed (cupti_activity.h,
// CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER: "a few stalls may appear in
// critical path"); with GPROF_CUPTI_ZEROED_BUFFERS=1 the writer zeroes them as
// it recycles them (ActivityBuffers::zero_on_recycle).
void Session::request_buffer_mode(const Config& config) {
  if (lib_.ActivitySetAttribute == nullptr) return;
  uint8_t per_thread = config.cupti_per_thread_buffers ? 1 : 0;
  size_t size = sizeof per_thread;
  CUptiResult r =
      lib_.ActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &per_thread);
  // A CUPTI that refuses the attribute predates it: one process-wide set.
  per_thread_buffers_.store(r == CUPTI_SUCCESS && per_thread != 0, std::memory_order_release);
  if (r != CUPTI_SUCCESS)
    GPROF_INFO("CUPTI keeps its own per-thread buffer mode: %s", lib_.describe(r));
  if (!config.cupti_zeroed_buffers) return;
  uint8_t zeroed = 1;
  size = sizeof zeroed;
  r = lib_.ActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed);
  if (r == CUPTI_SUCCESS)
    buffers_.zero_on_recycle(true);
  else
    GPROF_INFO("CUPTI zeroes its activity buffers itself: %s", lib_.describe(r));
}

void Session::start(const CuptiSetup& setup) {
  const Config& config = process_config();
  if (!config.cupti) {
    status().set_state(CuptiState::kCpuOnly);
    status().set_reason("GPROF_CUPTI=0");
    status().publish();
    return;
  }
  status().set_attach(setup.attach);
  if (!load_cupti(lib_, why_, sizeof why_)) {
    status().set_library(lib_.path, 0);
    return cpu_only("%s", why_);
  }
  status().set_library(lib_.path, lib_.version);
  if (!cupti_version_supported(lib_.version, lib_.path)) {
    snprintf(why_, sizeof why_,
             "%.400s reports CUPTI API version %u; gprof reads the records of CUPTI 12 and 13",
             lib_.path, lib_.version);
    return cpu_only("%s", why_);
  }
  // Whether another tool is there, before anything process-wide is touched
  // (the clock): its subscriber (cuptiSubscribe's answer, the same on the
  // real library: test/fakes/observed/), and what gprof's hooks saw it do.
  setup_ = setup;
  const Subscription subscription = subscribe(setup);
  if (subscription == Subscription::kFailed) return cpu_only("%s", why_);
  const char* other = other_subscriber_[0] ? other_subscriber_ : "another tool";
  if (g_foreign_buffers.load(std::memory_order_acquire)) {
    // The activity API is process-wide before CUPTI 13.2: registering our
    // buffers would take them from the tool that uses them.
    snprintf(why_, sizeof why_,
             subscription == Subscription::kTaken
                 ? "CUPTI is in use by %s (nsys, torch.profiler, a sanitizer?): its subscriber "
                   "and activity buffers are taken"
                 : "CUPTI's activity buffers are registered by %s (nsys, torch.profiler?)",
             other);
    return cpu_only("%s", why_);
  }
  if (!align_clock(subscription == Subscription::kOwned))
    return cpu_only("%s", "CUPTI has no clock (no driver?)");
  if (subscription == Subscription::kTaken) {
    GPROF_WARN(
        "the CUPTI subscriber is held by %s; GPU activity is paired with calls through external "
        "correlation ids, and calls made through a static runtime or the driver API are not seen",
        other);
    status().set_reason("CUPTI subscriber held by %s; paired through external correlation ids",
                        other);
  }
  if (!buffers_.allocate(config.cupti_buffers, config.cupti_buffer_bytes,
                         cupti_max_buffers(config))) {
    return cpu_only("%s", "cannot map the CUPTI activity buffers");
  }
  status().set_buffers(buffers_.count(), buffers_.buffer_bytes());
  request_buffer_mode(config);
  if (const CUptiResult r = lib_.ActivityRegisterCallbacks(buffer_requested, buffer_completed);
      r != CUPTI_SUCCESS) {
    snprintf(why_, sizeof why_, "cuptiActivityRegisterCallbacks: %s", lib_.describe(r));
    return cpu_only("%s", why_);
  }
  if (subscription == Subscription::kTaken &&
      !enable_kinds(kExternalKinds, sizeof kExternalKinds / sizeof kExternalKinds[0]))
    return cpu_only("%s", why_);
  if (!enable_kinds(kGpuKinds, sizeof kGpuKinds / sizeof kGpuKinds[0], &gpu_kinds_enabled_,
                    config.cupti_kinds))
    return cpu_only("%s", why_);
  // SYNCHRONIZATION is kGpuKinds[4]: with it every host wait makes a record.
  watchdog_.expect((gpu_kinds_enabled_ & (1u << 4)) != 0);

  running_state_ = subscription == Subscription::kOwned ? CuptiState::kSubscribed
                                                        : CuptiState::kExternalCorrelation;
  status().set_state(running_state_.load());
  status().publish();
  if (subscription == Subscription::kTaken) {
    process_state().external_correlation.store(true, std::memory_order_release);
    refresh_fast_launch();
  }
  active_.store(true, std::memory_order_release);
  process_state().gpu_source.store(this, std::memory_order_release);
  // A capture window that is closed now (or closed while the kinds were
  // enabled above, before window_changed could reach this session): off
  // until it opens.
  window_open_.store(capture_window_open(), std::memory_order_release);
  apply_window();
  GPROF_INFO("CUPTI %u from %s: %s", lib_.version, lib_.path,
             subscription == Subscription::kOwned ? "subscribed" : "external correlation");
}

}  // namespace gprof::cupti_session
