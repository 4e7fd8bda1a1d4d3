// CUPTI's activity buffers: handed out when CUPTI asks (on the thread that
// needs one), handed back complete (on CUPTI's own thread, or the one that
// flushes), parsed by the writer's drain and polls.
#include "collector/gpu/session/session.h"

#include "collector/gpu/activity_parser.h"
#include "collector/process/capture_window.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/clock.h"
#include "collector/queues/loss_counters.h"
#include "collector/queues/thread_state.h"

namespace gprof::cupti_session {

void CUPTIAPI Session::buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  Session* s = g_session;
  uint8_t* b = s ? s->buffers_.acquire() : nullptr;
  // Per-thread buffers: every launching thread holds one, partly filled,
  // until a flush, and the writer skips its flush while a request waits
  // below; so at the cap no buffer would come back (128 launching threads
  // stalled the fakes' burst until killed). Past the cap, up to kMaxBuffers,
  // as CUPTI's per-thread mode needs one per thread; counted in over_cap().
  if (!b && s && s->per_thread_buffers_.load(std::memory_order_acquire))
    b = s->buffers_.acquire_over_cap();
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
      ParsedActivity parsed = parse_activity(record, clock_map_);
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

void Session::flush_at_exit() {
  if (closed_.exchange(true, std::memory_order_acq_rel)) return;
  // Forced: incomplete buffers too. CUDA is still alive here: this handler
  // was registered at cuInit, after the runtime's own.
  lib_.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  collect_dropped();
  if (sem_t* wake = process_state().writer_wake.load(std::memory_order_acquire)) sem_post(wake);
}

}  // namespace gprof::cupti_session
