#include "collector/gpu/cupti_session.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>

#include <cstdio>
#include <new>

#include "collector/gpu/activity_buffers.h"
#include "collector/gpu/activity_parser.h"
#include "collector/gpu/cupti_library.h"
#include "collector/gpu/device_snapshot.h"
#include "collector/process/capture_window.h"
#include "collector/process/log.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/clock.h"
#include "collector/queues/loss_counters.h"
#include "collector/queues/thread_state.h"
#include "formats/correlation_ids.h"

namespace gprof {

namespace {

// How often the writer asks CUPTI for buffers it has not completed on its own.
constexpr uint64_t kPollIntervalNs = 200'000'000;

struct ActivityKind {
  CUpti_ActivityKind kind;
  const char* name;
  bool required;      // without it there is no point in the others
  uint32_t asked_by;  // the GPROF_CUPTI_KINDS bit that turns it on; 0: always on
};

constexpr ActivityKind kGpuKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true, kCuptiKindKernel},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", false, kCuptiKindMemcpy},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", false, kCuptiKindMemcpy},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", false, kCuptiKindMemset},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false, kCuptiKindSync},
};
// External correlation records are only made for API records.
constexpr ActivityKind kExternalKinds[] = {
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true, 0},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", true, 0},
};

class Session final : public GpuSource {
 public:
  void start(const CuptiSetup& setup);
  uint64_t drain(GpuSink& sink) override;
  void poll(uint64_t now_ns, GpuSink& sink) override;
  void poll_now(GpuSink& sink) override;
  bool call_into_cuda(GpuSink& sink, void (*call)(void*), void* context) override;
  void calls_drained(const TakeoverWatchdog::Calls& calls) override;
  void window_changed(bool open) override;
  void flush_at_exit();
  uint64_t push_external();
  void pop_external();

  // Another tool's call, seen by inject/hooks_cupti.cc (any thread).
  void foreign_before(ForeignCall call, CUpti_TimestampCallbackFunc clock);
  void foreign_after(ForeignCall call, CUptiResult result, CUpti_ActivityKind kind);

  static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer,
                                        size_t size, size_t valid_size);

 private:
  enum class Subscription { kOwned, kTaken, kFailed };
  // Another tool's cuptiSubscribe (any thread): gprof gives its subscriber up.
  void yield_subscriber();
  // Writer thread: tells what a yield changed, and subscribes again once the
  // other tool unsubscribed.
  void check_subscriber();
  void cpu_only(const char* format, const char* detail);
  bool align_clock(bool register_callback);
  bool sample_offset(CUpti_TimestampCallbackFunc clock, int64_t& offset, uint64_t& uncertainty);
  // Writer thread, every pass: notices a takeover and resumes after it.
  void check_takeover(GpuSink& sink);
  void open_gap(uint32_t flags, GpuSink& sink);
  // Parses what is completed now; counted in the next drain()'s return.
  void drain_now(GpuSink& sink) { delivered_in_poll_ += drain(sink); }
  bool try_resume(GpuSink& sink);
  // Writer: after another tool's cuptiFinalize, CUPTI as at the start.
  bool set_up_again(GpuSink& sink);
  // Writer thread: opens an interval when the watchdog finds the records gone.
  void check_watchdog(uint64_t now_ns, GpuSink& sink);
  // Any thread: brings the kinds in line with the capture window.
  void apply_window();
  void set_kinds(bool on);
  // With applying_ held, the window open: enables the GPU kinds whose bit
  // (kGpuKinds[i]) is in `mask`, and in external-correlation mode the
  // external kinds (a resume, a set-up again).
  void enable_window_kinds(uint32_t mask);
  bool expecting_records() const;
  Subscription subscribe(const CuptiSetup& setup);
  // Enables the kinds that `asked` (GPROF_CUPTI_KINDS bits) turns on.
  bool enable_kinds(const ActivityKind* kinds, size_t count, uint32_t* enabled = nullptr,
                    uint32_t asked = kCuptiKindsAll);
  void request_buffer_mode(const Config& config);
  void collect_dropped();

  CuptiLibrary lib_;
  ActivityBuffers buffers_;
  // Set while the writer is inside poll(): see buffer_requested.
  GpuSink* polling_sink_ = nullptr;
  uint64_t delivered_in_poll_ = 0;
  uint32_t reported_buffers_ = 0;
  std::atomic<uint32_t> buffer_waiters_{0};
  // The writer is inside ActivityFlushAll. A thread that CUPTI asks for a
  // buffer may hold a lock that flush needs (the fake runtime's delivery
  // lock; CUPTI's own): waiting for the writer then waits for itself.
  // Only the writer's own flushes count: at exit another thread flushes, and
  // the writer stays free to recycle buffers for it.
  std::atomic<uint32_t> in_flush_{0};
  // Which of the writer's flushes a waiter gave up in, past every buffer
  // (kMaxBuffers): later requests in that flush give up at once.
  std::atomic<uint64_t> flush_count_{0};
  std::atomic<uint64_t> gave_up_in_flush_{0};
  CUpti_SubscriberHandle subscriber_ = nullptr;
  CuptiSetup setup_;  // the callbacks to enable again after a yield
  // The subscriber given up to another tool (docs/architecture.md §3.4): set by
  // yield_subscriber on that tool's thread, cleared by the writer when it
  // subscribes again.
  std::atomic<bool> yielded_{false};
  std::atomic<bool> yield_told_{false};
  std::atomic<bool> foreign_unsubscribed_{false};
  // Another tool's cuptiFinalize undid gprof's setup: nothing to give up
  // until set_up_again (any thread sets it, the writer clears it).
  std::atomic<bool> finalized_{false};
  bool setup_failed_ = false;       // writer: set_up_again failed; not tried again
  bool finalize_end_told_ = false;  // writer: the process ended inside that gap
  int64_t offset_ns_ = 0;           // CUPTI - recording clock
  uint64_t last_poll_ns_ = 0;
  std::atomic<bool> closed_{false};
  // Above CUPTI's ids (formats/correlation_ids.h): the calls made before a
  // takeover carry CUPTI's ids, those after it these, in one file.
  std::atomic<uint64_t> next_external_{kPushedIdBase};
  // Takeover by another tool (docs/architecture.md §3.4). Set by foreign_before/after
  // on the other tool's thread, read and cleared by the writer.
  std::atomic<bool> active_{false};       // gprof's buffers and kinds are set up
  std::atomic<uint32_t> foreign_{0};      // kForeign* bits since the last resume
  std::atomic<uint64_t> foreign_seq_{0};  // changes at each call of the other tool (and its end)
  std::atomic<uint64_t> foreign_last_ns_{0};
  std::atomic<uint64_t> foreign_start_ns_{0};  // its first call since the last resume
  std::atomic<uint32_t> disabled_{0};          // bit i: kGpuKinds[i] disabled by it
  std::atomic<CUpti_TimestampCallbackFunc> foreign_clock_{nullptr};
  std::atomic<bool> gap_open_{false};  // set by the writer, read by a window opening
  // The capture window (docs/architecture.md §2.1: not on the hot path: only where a
  // window opens or closes). window_open_ is what the window asks for;
  // kinds_on_ what gprof last set, changed only by whoever holds applying_.
  std::atomic<bool> window_open_{true};
  std::atomic<bool> applying_{false};
  std::atomic<bool> kinds_on_{true};
  uint32_t gpu_kinds_enabled_ = 0;  // bit i: kGpuKinds[i] was enabled at start
  TakeoverWatchdog watchdog_;       // writer thread
  uint32_t gap_flags_ = 0;
  // What a resume goes back to; a yield changes it on another tool's thread.
  std::atomic<CuptiState> running_state_{CuptiState::kSubscribed};
  uint64_t gpu_read_ = 0;  // GPU records parsed, writer thread
  char why_[512] = {};
  char other_subscriber_[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
};

constinit std::atomic<bool> g_started{false};
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
alignas(Session) unsigned char g_session_storage[sizeof(Session)];
Session* g_session = nullptr;

uint64_t CUPTIAPI recording_clock() {
  return clock_ns();
}

CuptiStatus& status() {
  return process_state().cupti;
}

void Session::cpu_only(const char* format, const char* detail) {
  status().set_state(CuptiState::kCpuOnly);
  status().set_reason(format, detail);
  status().publish();
  char line[600];
  snprintf(line, sizeof line, format, detail);
  GPROF_WARN("%s; GPU activity is not recorded, CPU-side calls are", line);
}

// The offset of CUPTI's clock (or `clock`, a timestamp callback another tool
// registered) to the recording clock: the tightest of a few samples.
bool Session::sample_offset(CUpti_TimestampCallbackFunc clock, int64_t& offset,
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
      offset = static_cast<int64_t>(cupti) - static_cast<int64_t>(before + (after - before) / 2);
    }
  }
  uncertainty = best_gap / 2;
  return true;
}

// Must precede any cuptiActivityEnable (docs/architecture.md §3.5). The timestamp callback
// is process-wide: registering ours when another tool is there would put its
// records on our clock (kineto registers its own, CuptiTimestamp.cpp), so it
// is only registered when gprof found no other tool (`register_callback`);
// otherwise the offset to CUPTI's clock is sampled.
bool Session::align_clock(bool register_callback) {
  if (register_callback &&
      lib_.ActivityRegisterTimestampCallback(recording_clock) == CUPTI_SUCCESS) {
    status().set_clock(true, 0, 0);
    return true;
  }
  uint64_t uncertainty = 0;
  if (!sample_offset(nullptr, offset_ns_, uncertainty)) return false;
  status().set_clock(false, offset_ns_, uncertainty);
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
  for (size_t s = 0; s < setup.callback_sets; ++s) {
    const CallbackIds& set = setup.callbacks[s];
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
// threads contention on one buffer (kineto moved to them for overhead), a
// cost not yet measured on a GPU against the one above (scripts/gpu_check.py,
// the overhead ladder). Both must be set before the buffer callbacks are
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
             "%s reports CUPTI API version %u; gprof reads the records of CUPTI 12 and 13",
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

void CUPTIAPI Session::buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  Session* s = g_session;
  uint8_t* b = s ? s->buffers_.acquire() : nullptr;
  // is_writer first: polling_sink_ is the writer's own field.
  if (!b && s && this_thread().is_writer && s->polling_sink_ != nullptr) {
    // The writer's own flush made CUPTI deliver records, and the pool is at
    // its cap: no one else can free a buffer, so the writer parses the
    // completed ones here (into the pass in progress) and takes one back.
    s->delivered_in_poll_ += s->drain(*s->polling_sink_);
    b = s->buffers_.acquire();
  }
  if (!b && s && process_config().on_full == OnFull::kWait && recording()) {
    // At the cap, as the record queues do: the writer frees a buffer by
    // parsing a completed one, which needs nothing of CUPTI's (it skips its
    // periodic flush meanwhile, which might need a lock CUPTI holds here).
    s->buffer_waiters_.fetch_add(1, std::memory_order_seq_cst);
    if (sem_t* wake = process_state().writer_wake.load(std::memory_order_acquire)) sem_post(wake);
    // A timeout is counted by CUPTI's own dropped-record count, not here.
    // While the writer is inside a flush it frees nothing, and may be
    // waiting for a lock this thread holds: then a buffer past the cap
    // (Dekker with poll(): the writer sees this waiter, or this waiter sees
    // the writer in its flush). Past kMaxBuffers, a thread delivering a long
    // backlog under that lock waited GPROF_MAX_WAIT_MS per buffer (the 60 s
    // hangs of the tiny-pool burst test under load): it waits kStuckNs for
    // the flush to end, then that flush's requests get none (CUPTI drops and
    // counts the records).
    struct Wait {
      Session* session;
      uint64_t exhausted_ns;
    } wait{s, 0};
    b = static_cast<uint8_t*>(hold_for_writer(
        [](void* context) -> void* {
          constexpr uint64_t kStuckNs = 100'000'000;
          Wait* w = static_cast<Wait*>(context);
          Session* self = w->session;
          if (uint8_t* free = self->buffers_.acquire()) return free;
          if (self->in_flush_.load(std::memory_order_seq_cst) == 0) return nullptr;
          if (uint8_t* extra = self->buffers_.acquire_over_cap()) return extra;
          const uint64_t flush = self->flush_count_.load(std::memory_order_acquire);
          if (self->gave_up_in_flush_.load(std::memory_order_acquire) == flush)
            return hold_give_up();
          const uint64_t now = clock_ns();
          if (w->exhausted_ns == 0) w->exhausted_ns = now;
          if (now - w->exhausted_ns < kStuckNs) return nullptr;
          self->gave_up_in_flush_.store(flush, std::memory_order_release);
          return hold_give_up();
        },
        &wait, false));
    s->buffer_waiters_.fetch_sub(1, std::memory_order_acq_rel);
  }
  *buffer = b;
  *size = b ? s->buffers_.buffer_bytes() : 0;
  *max_records = 0;  // as many as fit
  if (!b) losses().add(LossReason::kCuptiNoBuffer);
}

void CUPTIAPI Session::buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t,
                                        size_t valid_size) {
  Session* s = g_session;
  if (!s || !s->buffers_.complete(buffer, valid_size)) {
    losses().add(LossReason::kCuptiParseError);
    return;
  }
  if (sem_t* wake = process_state().writer_wake.load(std::memory_order_acquire)) sem_post(wake);
}

uint64_t Session::drain(GpuSink& sink) {
  uint64_t delivered = 0;
  if (polling_sink_ == nullptr) {  // not re-entered from buffer_requested
    delivered = delivered_in_poll_;
    delivered_in_poll_ = 0;
  }
  if (const uint32_t mapped = buffers_.count(); mapped != reported_buffers_) {
    // The pool grew (writer thread: the status is only encoded here).
    reported_buffers_ = mapped;
    status().set_buffers(mapped, buffers_.buffer_bytes());
    status().publish();
  }
  uint64_t parsed_gpu = 0;
  buffers_.take_completed([&](uint8_t* buffer, size_t valid) {
    CUpti_Activity* record = nullptr;
    for (;;) {
      const CUptiResult r = lib_.ActivityGetNextRecord(buffer, valid, &record);
      if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
      if (r != CUPTI_SUCCESS) {
        losses().add(LossReason::kCuptiParseError);
        break;
      }
      ParsedActivity parsed = parse_activity(record, offset_ns_);
      switch (parsed.outcome) {
        case ActivityOutcome::kGpu:
          sink.gpu(parsed.gpu, parsed.kernel_name);
          ++delivered;
          ++gpu_read_;
          ++parsed_gpu;
          break;
        case ActivityOutcome::kExternal:
          sink.external_correlation(parsed.correlation, parsed.external_id);
          break;
        case ActivityOutcome::kZeroTimestamp:
          losses().add(LossReason::kCuptiZeroTimestamp);
          break;
        case ActivityOutcome::kIgnored:
          break;
      }
    }
  });
  watchdog_.records(parsed_gpu);
  return delivered;
}

void Session::collect_dropped() {
  size_t dropped = 0;
  if (lib_.ActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0)
    losses().add(LossReason::kCuptiDropped, dropped);
}

bool Session::call_into_cuda(GpuSink& sink, void (*call)(void*), void* context) {
  // After the exit flush too: the driver is still up (only the runtime tore
  // its contexts down), and what CUPTI delivers still reaches the final drain.
  flush_count_.fetch_add(1, std::memory_order_acq_rel);
  in_flush_.fetch_add(1, std::memory_order_seq_cst);
  if (buffer_waiters_.load(std::memory_order_seq_cst) != 0) {
    in_flush_.fetch_sub(1, std::memory_order_release);
    return false;
  }
  polling_sink_ = &sink;
  call(context);
  polling_sink_ = nullptr;
  in_flush_.fetch_sub(1, std::memory_order_release);
  return true;
}

void Session::poll(uint64_t now_ns, GpuSink& sink) {
  check_takeover(sink);
  // The window itself, not only what it told: two threads changing it at
  // once may have told this session in the wrong order.
  window_open_.store(capture_window_open(), std::memory_order_seq_cst);
  apply_window();
  if (now_ns - last_poll_ns_ < kPollIntervalNs) return;
  last_poll_ns_ = now_ns;
  // Before this pass's flush: what the earlier ones brought is parsed by now.
  check_watchdog(now_ns, sink);
  poll_now(sink);
}

void Session::poll_now(GpuSink& sink) {
  if (closed_.load(std::memory_order_acquire)) return;
  if (call_into_cuda(
          sink,
          [](void* session) {
            Session* self = static_cast<Session*>(session);
            self->lib_.ActivityFlushAll(0);
            self->collect_dropped();
          },
          this))
    watchdog_.flushed();
}

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

constexpr uint32_t kForeignUnseen = 32;  // found by the watchdog, not by a hook

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

constexpr uint32_t kForeignBuffers = 1;    // its buffer callbacks replaced gprof's
constexpr uint32_t kForeignDisabled = 2;   // it disabled a kind gprof uses
constexpr uint32_t kForeignClock = 4;      // it registered its own timestamp callback
constexpr uint32_t kForeignFinalized = 8;  // cuptiFinalize
constexpr uint32_t kForeignKernels = 16;   // it enabled a kernel kind (its session runs)
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
  if (call == ForeignCall::kTimestampCallback && clock != nullptr)
    foreign_clock_.store(clock, std::memory_order_release);
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
  if (CUpti_TimestampCallbackFunc clock = foreign_clock_.load(std::memory_order_acquire)) {
    uint64_t uncertainty = 0;
    int64_t offset = 0;
    if (sample_offset(clock, offset, uncertainty)) {
      offset_ns_ = offset;
      status().set_clock(false, offset_ns_, uncertainty);
    }
  }
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
  char how[160];
  snprintf(how, sizeof how, "resumed after the other tool stopped%s",
           foreign_clock_.load(std::memory_order_acquire) != nullptr
               ? " (on its clock, offset sampled)"
               : "");
  status().close_gap(clock_ns(), gpu_read_, how);
  status().set_state(running_state_.load());
  status().publish();
  gap_open_ = false;
  applying_.store(false, std::memory_order_seq_cst);
  watchdog_.reset();
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
  status().close_gap(clock_ns(), gpu_read_,
                     subscription == Subscription::kOwned
                         ? "resumed: gprof set CUPTI up again"
                         : "resumed: gprof set CUPTI up again, paired through external "
                           "correlation ids (another tool holds the subscriber)");
  status().set_reason("%s", "");
  status().set_state(running_state_.load());
  status().publish();
  gap_open_ = false;
  applying_.store(false, std::memory_order_seq_cst);
  watchdog_.reset();
  GPROF_INFO("CUPTI: set up again after the other tool's cuptiFinalize");
  return true;
}

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
          uint64_t uncertainty = 0;
          int64_t offset = 0;
          if (sample_offset(clock, offset, uncertainty)) {
            offset_ns_ = offset;
            status().set_clock(false, offset_ns_, uncertainty);
            status().publish();
          }
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

void Session::flush_at_exit() {
  if (closed_.exchange(true, std::memory_order_acq_rel)) return;
  // Forced: incomplete buffers too. CUDA is still alive here: this handler
  // was registered at cuInit, after the runtime's own.
  lib_.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  collect_dropped();
  if (sem_t* wake = process_state().writer_wake.load(std::memory_order_acquire)) sem_post(wake);
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

// Registered at cuInit, so it runs before CUDA's own exit handlers (they run
// in reverse): the last moment the driver answers.
void before_cuda_exit() {
  snapshot_devices_before_cuda_exit();
  // Null in a fork child, which must not touch the parent's CUPTI state.
  if (g_session && process_state().gpu_source.load(std::memory_order_acquire) == g_session)
    g_session->flush_at_exit();
}

}  // namespace

void start_cupti(const CuptiSetup& setup) {
  if (g_started.exchange(true)) return;
  g_session = new (g_session_storage) Session();
  g_session->start(setup);
  // After cuInit, so before CUDA's own exit handlers (they run in reverse);
  // CPU-only too, for the devices. Not at_quick_exit: quick_exit is how
  // signal handlers end a program, and a forced flush there may wait for a
  // lock the interrupted thread holds inside CUPTI, unbounded. The writer's
  // bounded final pass flushes instead.
  atexit(before_cuda_exit);
}

void foreign_cupti_before(ForeignCall call, CUpti_TimestampCallbackFunc clock) {
  if (g_session && process_state().gpu_source.load(std::memory_order_acquire) == g_session)
    g_session->foreign_before(call, clock);
}

void foreign_cupti_after(ForeignCall call, CUptiResult result, CUpti_ActivityKind kind) {
  if (result == CUPTI_SUCCESS &&
      (call == ForeignCall::kRegisterCallbacks || call == ForeignCall::kFinalize))
    g_foreign_buffers.store(call == ForeignCall::kRegisterCallbacks, std::memory_order_release);
  if (g_session && process_state().gpu_source.load(std::memory_order_acquire) == g_session)
    g_session->foreign_after(call, result, kind);
}

uint64_t push_external_correlation() {
  return g_session ? g_session->push_external() : 0;
}

void pop_external_correlation() {
  if (g_session) g_session->pop_external();
}

}  // namespace gprof
