// The CUPTI session's class (cupti_session.h is the process's interface to
// it): one object per process, its stages in the files beside this one:
//   setup.cc       subscribe, clock, buffer mode, kinds, start;
//   buffers.cc     CUPTI's buffer callbacks, the writer's drain and polls;
//   window.cc      the capture window switching the activity kinds;
//   takeover.cc    another tool taking CUPTI's activity API over, the
//                  watchdog, the resume, set-up again after its cuptiFinalize;
//   subscriber.cc  another tool asking for the subscriber slot.
// Internal to the collector: hidden, as every symbol of libgprof.so.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "collector/gpu/activity_buffers.h"
#include "collector/gpu/activity_parser.h"
#include "collector/gpu/clock_map.h"
#include "collector/gpu/cupti_library.h"
#include "collector/gpu/cupti_session.h"
#include "collector/gpu/gpu_source.h"
#include "collector/gpu/takeover_watchdog.h"
#include "collector/process/config.h"
#include "collector/process/process_state.h"
#include "formats/correlation_ids.h"

namespace gprof::cupti_session {

// How often the writer asks CUPTI for buffers it has not completed on its own.
inline constexpr uint64_t kPollIntervalNs = 200'000'000;

struct ActivityKind {
  CUpti_ActivityKind kind;
  const char* name;
  bool required;      // without it there is no point in the others
  uint32_t asked_by;  // the GPROF_CUPTI_KINDS bit that turns it on; 0: always on
};

inline constexpr ActivityKind kGpuKinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true, kCuptiKindKernel},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", false, kCuptiKindMemcpy},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", false, kCuptiKindMemcpy},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", false, kCuptiKindMemset},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false, kCuptiKindSync},
};
// External correlation records are only made for API records.
inline constexpr ActivityKind kExternalKinds[] = {
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
  // Readings of CUPTI's clock (or `clock`, another tool's timestamp callback)
  // and the recording clock taken together: the tightest of a few.
  bool sample_pair(CUpti_TimestampCallbackFunc clock, uint64_t& tick, uint64_t& ns,
                   uint64_t& uncertainty);
  // Writer: clock_map_ for another tool's clock, fitted from the reading
  // taken when it registered and one now (clock_map.h says why a line).
  bool fit_foreign_clock(CUpti_TimestampCallbackFunc clock);
  // Writer thread, every pass: notices a takeover and resumes after it.
  void check_takeover(GpuSink& sink);
  void open_gap(uint32_t flags, GpuSink& sink);
  // Parses what is completed now; counted in the next drain()'s return.
  void drain_now(GpuSink& sink) { delivered_in_poll_ += drain(sink); }
  bool try_resume(GpuSink& sink);
  // Writer: after another tool's cuptiFinalize, CUPTI as at the start.
  bool set_up_again(GpuSink& sink);
  // Writer, the last step of a resume or a set-up again: the gap ends
  // (`how` appended to its reason) and the watchdog starts afresh.
  void end_gap(const char* how);
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
  // CUPTI fills a buffer per launching thread (request_buffer_mode).
  std::atomic<bool> per_thread_buffers_{false};
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
  ClockMap clock_map_;              // CUPTI's timestamps -> the recording clock
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
  // foreign_clock_ and the recording clock read together as it registered.
  std::atomic<uint64_t> foreign_anchor_tick_{0}, foreign_anchor_ns_{0};
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

// What another tool did since gprof's last resume (Session::foreign_): bits.
inline constexpr uint32_t kForeignBuffers = 1;    // its buffer callbacks replaced gprof's
inline constexpr uint32_t kForeignDisabled = 2;   // it disabled a kind gprof uses
inline constexpr uint32_t kForeignClock = 4;      // it registered its own timestamp callback
inline constexpr uint32_t kForeignFinalized = 8;  // cuptiFinalize
inline constexpr uint32_t kForeignKernels = 16;   // it enabled a kernel kind (its session runs)
inline constexpr uint32_t kForeignUnseen = 32;    // found by the watchdog, not by a hook

// The process's session (cupti_session.cc); null until start_cupti.
extern Session* g_session;

// Whether gprof's interposed CUPTI entry points saw another tool register
// activity buffers before the session started (setup.cc says why this is
// evidence and cuptiActivityFlushAll's answer is not).
extern std::atomic<bool> g_foreign_buffers;

CuptiStatus& status();
uint64_t CUPTIAPI recording_clock();

}  // namespace gprof::cupti_session
