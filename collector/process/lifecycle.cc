// Process lifecycle of the collector (docs/architecture.md §2.6): a minimal start in
// the preload constructor, the writer started on first use, the exit flush
// within a time bound, and fork children that never touch the parent's file.
#include <stdlib.h>
#include <sys/auxv.h>

#include <atomic>
#include <new>

#include "collector/output/start_time.h"
#include "collector/output/writer.h"
#include "collector/process/capture_window.h"
#include "collector/process/log.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/loss_counters.h"
#include "collector/queues/static_tls.h"
#include "collector/queues/thread_state.h"

namespace gprof {

// Constant-initialized: no guard on the hot path, ready before any constructor.
constinit ProcessState g_process_state;
constinit Config g_config;

namespace {

alignas(Writer) unsigned char g_writer_storage[sizeof(Writer)];

// Chunks ready before the writer runs, so that the first records of the
// first threads do not wait for it.
constexpr uint32_t kStartChunks = ChunkPool::kChunksPerMapping;

void child_after_fork() {
  ProcessState& p = process_state();
  p.forked_child.store(true, std::memory_order_release);
  // Only the forking thread exists here; its queue is the parent's.
  ThreadState& t = t_thread;
  t.cursor = t.end = nullptr;
  t.chunk = nullptr;
  t.queue = nullptr;
  p.queues.reset_in_child();
  p.chunks.reset_in_child();
  p.chunks.stock(kStartChunks);
  losses().reset();
  holds().reset();
  p.wake_pending.store(false, std::memory_order_relaxed);
  p.start_pair = take_calibration_pair();
  // The parent's writer thread does not exist here. Its object is abandoned,
  // not destroyed: the thread may have been mid-way through it at fork time.
  if (p.writer) p.writer->abandon_in_child();
  p.writer = nullptr;
  p.writer_wake.store(nullptr, std::memory_order_release);
  p.writer_state.store(static_cast<int>(WriterState::kIdle), std::memory_order_release);
  // No CUPTI calls in the child (docs/architecture.md §2.6): its GPU state is the parent's.
  p.gpu_source.store(nullptr, std::memory_order_release);
  p.external_correlation.store(false, std::memory_order_release);
  refresh_fast_launch();
  if (g_config.fork_policy == ForkPolicy::kStop) stop_recording();
}

}  // namespace

const Config& process_config() {
  return g_config;
}
bool start_writer_once() {
  ProcessState& p = process_state();
  int state = p.writer_state.load(std::memory_order_acquire);
  if (state == static_cast<int>(WriterState::kRunning)) return true;
  if (state == static_cast<int>(WriterState::kFailed)) return false;
  int expected = static_cast<int>(WriterState::kIdle);
  if (!p.writer_state.compare_exchange_strong(expected, static_cast<int>(WriterState::kStarting),
                                              std::memory_order_acq_rel)) {
    // Another thread is starting it; our records wait in our ring meanwhile.
    return expected != static_cast<int>(WriterState::kFailed);
  }
  Writer* writer =
      new (g_writer_storage) Writer(g_config, p.chunks, p.queues, p.kernels, p.strings);
  p.writer = writer;
  bool started = writer->start();
  if (started) p.writer_wake.store(writer->wake_semaphore(), std::memory_order_release);
  if (!started) stop_recording();
  p.writer_state.store(static_cast<int>(started ? WriterState::kRunning : WriterState::kFailed),
                       std::memory_order_release);
  return started;
}

void initialize_process() {
  // setuid programs: never write files on behalf of another user.
  if (getauxval(AT_SECURE)) return;
  ProcessState& p = process_state();
  g_config = load_config(secure_getenv);
  if (!g_config.enabled || g_config.other_process) return;
  capture_utc_offset();
  init_timestamps(g_config.tsc);
  find_static_tls();
  p.start_pair = take_calibration_pair();
  p.chunks.configure(queue_memory_cap(g_config));
  p.chunks.stock(kStartChunks);
  if (pthread_key_create(&p.queue_key, orphan_thread_queue) != 0) {
    GPROF_WARN("cannot create a thread key; this process is not profiled");
    return;
  }
  pthread_atfork(nullptr, nullptr, child_after_fork);
  // Registered before the program's own atexit handlers and static
  // destructors, so it runs after them and their CUDA calls are recorded.
  // quick_exit runs only at_quick_exit handlers: the same flush there.
  atexit(finish_process);
  at_quick_exit(finish_process);
  configure_capture(g_config);
}

void finish_process() {
  // Once: exit() after quick_exit's handlers, or a second exit path.
  static std::atomic<bool> finished_once{false};
  if (finished_once.exchange(true)) return;
  ProcessState& p = process_state();
  if (p.writer_state.load(std::memory_order_acquire) != static_cast<int>(WriterState::kRunning)) {
    stop_recording();
    return;
  }
  // Recording goes on during the final drain (bounded, 64 passes): CUPTI
  // still delivers GPU records of work done before exit, and a buffer request
  // waits for the writer only while recording (stopping first dropped them).
  bool finished = p.writer->stop_and_wait(g_config.flush_timeout_ms);
  stop_recording();
  if (!finished) p.writer->abandon_at_exit();
  if (!finished)
    GPROF_WARN(
        "the final flush did not finish within %u ms (GPROF_FLUSH_TIMEOUT_MS); "
        "the file is incomplete",
        g_config.flush_timeout_ms);
}

}  // namespace gprof
