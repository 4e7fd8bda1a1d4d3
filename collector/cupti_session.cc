#include "collector/cupti_session.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <cstdio>
#include <new>

#include "collector/activity_buffers.h"
#include "collector/activity_parser.h"
#include "collector/clock.h"
#include "collector/cupti_library.h"
#include "collector/log.h"
#include "collector/loss_counters.h"
#include "collector/process_state.h"
#include "collector/recorder.h"
#include "collector/thread_state.h"

namespace gprof {

namespace {

// How often the writer asks CUPTI for buffers it has not completed on its own.
constexpr uint64_t kPollIntervalNs = 200'000'000;

struct ActivityKind {
  CUpti_ActivityKind kind;
  const char* name;
  bool required;  // without it there is no point in the others
};

constexpr ActivityKind kGpuKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", false},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", false},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", false},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false},
};
// External correlation records are only made for API records.
constexpr ActivityKind kExternalKinds[] = {
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", true},
};

class Session final : public GpuSource {
 public:
  void start(const CuptiSetup& setup);
  uint64_t drain(GpuSink& sink) override;
  void poll(uint64_t now_ns, GpuSink& sink) override;
  void poll_now(GpuSink& sink) override;
  bool call_into_cuda(GpuSink& sink, void (*call)(void*), void* context) override;
  void flush_at_exit();
  uint64_t push_external();
  void pop_external();

  static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer,
                                        size_t size, size_t valid_size);

 private:
  enum class Subscription { kOwned, kTaken, kFailed };
  void cpu_only(const char* format, const char* detail);
  bool align_clock();
  Subscription subscribe(const CuptiSetup& setup);
  bool enable_kinds(const ActivityKind* kinds, size_t count);
  void request_shared_buffers();
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
  CUpti_SubscriberHandle subscriber_ = nullptr;
  int64_t offset_ns_ = 0;  // CUPTI - recording clock
  uint64_t last_poll_ns_ = 0;
  std::atomic<bool> closed_{false};
  std::atomic<uint64_t> next_external_{1};
  char why_[512] = {};
  char other_subscriber_[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
};

constinit std::atomic<bool> g_started{false};
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

bool Session::align_clock() {
  // Must precede any cuptiActivityEnable (DESIGN.md §3).
  if (lib_.ActivityRegisterTimestampCallback(recording_clock) == CUPTI_SUCCESS) {
    status().set_clock(true, 0, 0);
    return true;
  }
  // Fallback: the tightest of a few (clock, CUPTI, clock) samples.
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 16; ++i) {
    const uint64_t before = clock_ns();
    uint64_t cupti = 0;
    if (lib_.GetTimestamp(&cupti) != CUPTI_SUCCESS) return false;
    const uint64_t after = clock_ns();
    if (after - before < best_gap) {
      best_gap = after - before;
      offset_ns_ =
          static_cast<int64_t>(cupti) - static_cast<int64_t>(before + (after - before) / 2);
    }
  }
  status().set_clock(false, offset_ns_, best_gap / 2);
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

bool Session::enable_kinds(const ActivityKind* kinds, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const CUptiResult result = lib_.ActivityEnable(kinds[i].kind);
    if (result == CUPTI_SUCCESS) {
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
// instead; it must be set before the buffer callbacks are registered and
// before any kind is enabled. A CUPTI without the attribute keeps its own
// mode, and the pool still grows to its cap.
void Session::request_shared_buffers() {
  if (lib_.ActivitySetAttribute == nullptr) return;
  uint8_t per_thread = 0;
  size_t size = sizeof per_thread;
  const CUptiResult r =
      lib_.ActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &per_thread);
  if (r != CUPTI_SUCCESS)
    GPROF_INFO("CUPTI keeps per-thread activity buffers: %s", lib_.describe(r));
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
  if (!align_clock()) return cpu_only("%s", "CUPTI has no clock (no driver?)");

  const Subscription subscription = subscribe(setup);
  if (subscription == Subscription::kFailed) return cpu_only("%s", why_);
  if (subscription == Subscription::kTaken) {
    // The activity API is process-wide in CUPTI 13: registering our buffers
    // would take them from a tool that already uses them. FlushAll fails
    // with INVALID_OPERATION exactly when no buffer callbacks exist yet.
    const char* other = other_subscriber_[0] ? other_subscriber_ : "another tool";
    if (lib_.ActivityFlushAll(0) == CUPTI_SUCCESS) {
      snprintf(why_, sizeof why_,
               "CUPTI is in use by %s (nsys, torch.profiler, a sanitizer?): its subscriber and "
               "activity buffers are taken",
               other);
      return cpu_only("%s", why_);
    }
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
  request_shared_buffers();
  if (const CUptiResult r = lib_.ActivityRegisterCallbacks(buffer_requested, buffer_completed);
      r != CUPTI_SUCCESS) {
    snprintf(why_, sizeof why_, "cuptiActivityRegisterCallbacks: %s", lib_.describe(r));
    return cpu_only("%s", why_);
  }
  if (subscription == Subscription::kTaken &&
      !enable_kinds(kExternalKinds, sizeof kExternalKinds / sizeof kExternalKinds[0]))
    return cpu_only("%s", why_);
  if (!enable_kinds(kGpuKinds, sizeof kGpuKinds / sizeof kGpuKinds[0])) return cpu_only("%s", why_);

  status().set_state(subscription == Subscription::kOwned ? CuptiState::kSubscribed
                                                          : CuptiState::kExternalCorrelation);
  status().publish();
  if (subscription == Subscription::kTaken) {
    process_state().external_correlation.store(true, std::memory_order_release);
    refresh_fast_launch();
  }
  process_state().gpu_source.store(this, std::memory_order_release);
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
    // the writer in its flush).
    b = static_cast<uint8_t*>(hold_for_writer(
        [](void* session) -> void* {
          Session* self = static_cast<Session*>(session);
          if (uint8_t* free = self->buffers_.acquire()) return free;
          return self->in_flush_.load(std::memory_order_seq_cst) != 0
                     ? self->buffers_.acquire_over_cap()
                     : nullptr;
        },
        s, false));
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
  if (now_ns - last_poll_ns_ < kPollIntervalNs) return;
  last_poll_ns_ = now_ns;
  poll_now(sink);
}

void Session::poll_now(GpuSink& sink) {
  if (closed_.load(std::memory_order_acquire)) return;
  call_into_cuda(
      sink,
      [](void* session) {
        Session* self = static_cast<Session*>(session);
        self->lib_.ActivityFlushAll(0);
        self->collect_dropped();
      },
      this);
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

void flush_at_exit() {
  // Null in a fork child, which must not touch the parent's CUPTI state.
  if (g_session && process_state().gpu_source.load(std::memory_order_acquire) == g_session)
    g_session->flush_at_exit();
}

}  // namespace

void start_cupti(const CuptiSetup& setup) {
  if (g_started.exchange(true)) return;
  g_session = new (g_session_storage) Session();
  g_session->start(setup);
  // After cuInit, so before CUDA's own exit handlers (they run in reverse).
  // Not at_quick_exit: quick_exit is how signal handlers end a program, and
  // a forced flush there may wait for a lock the interrupted thread holds
  // inside CUPTI, unbounded. The writer's bounded final pass flushes instead.
  if (process_state().gpu_source.load(std::memory_order_acquire) != nullptr) atexit(flush_at_exit);
}

uint64_t push_external_correlation() {
  return g_session ? g_session->push_external() : 0;
}

void pop_external_correlation() {
  if (g_session) g_session->pop_external();
}

}  // namespace gprof
