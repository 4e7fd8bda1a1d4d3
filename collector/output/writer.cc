#include "collector/output/writer.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "collector/gpu/late_attach.h"
#include "collector/process/log.h"
#include "collector/process/process_state.h"
#include "collector/process/recorder.h"
#include "collector/queues/clock.h"
#include "collector/queues/loss_counters.h"
#include "collector/queues/thread_state.h"

namespace gprof {

namespace {

// Per queue per pass: keeps one frame well under kMaxFramePayload.
constexpr uint64_t kMaxRecordsPerQueuePass = 65536;

timespec deadline_after_ms(uint32_t ms) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += static_cast<long>(ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec += 1;
    ts.tv_nsec -= 1000000000L;
  }
  return ts;
}

}  // namespace

Writer::Writer(const Config& config, ChunkPool& chunks, ThreadQueues& queues,
               KernelRegistry& kernels, StringTable& strings)
    : config_(config),
      chunks_(chunks),
      queues_(queues),
      kernels_(kernels),
      strings_table_(strings),
      ticks_(g_timestamp_source) {
  sem_init(&wake_, 0, 0);
  sem_init(&done_, 0, 0);
}

bool Writer::start() {
  // The thread must never take a signal meant for the host program.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&thread, &attr, &Writer::thread_main, this);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (rc != 0) {
    GPROF_WARN("cannot start the writer thread (%s); this process is not profiled", strerror(rc));
    return false;
  }
  return true;
}

void* Writer::thread_main(void* self) {
  pthread_setname_np(pthread_self(), "gprof-writer");
  static_cast<Writer*>(self)->run();
  return nullptr;
}

bool Writer::stop_and_wait(uint32_t timeout_ms) {
  stop_requested_.store(true, std::memory_order_release);
  sem_post(&wake_);
  timespec deadline = deadline_after_ms(timeout_ms);
  while (!finished_.load(std::memory_order_acquire)) {
    if (sem_clockwait(&done_, CLOCK_MONOTONIC, &deadline) == 0) break;
    if (errno == ETIMEDOUT) return finished_.load(std::memory_order_acquire);
  }
  return true;
}

void Writer::abandon_in_child() {
  close_output();
}

void Writer::run() {
  this_thread().is_writer = true;
  ProcessState& p = process_state();
  ticks_.add(p.start_pair);
  last_pair_ns_ = p.start_pair.ns;
  stock_chunks();
  if (open_file()) {
    write_header();
    while (!stop_requested_.load(std::memory_order_acquire)) {
      if (!backlog_) {
        timespec deadline = deadline_after_ms(config_.flush_interval_ms);
        sem_clockwait(&wake_, CLOCK_MONOTONIC, &deadline);
      }
      if (config_.writer_delay_ms) {
        timespec pause{config_.writer_delay_ms / 1000,
                       static_cast<long>(config_.writer_delay_ms % 1000) * 1000000L};
        nanosleep(&pause, nullptr);
      }
      p.wake_pending.store(false, std::memory_order_release);
      poll_late_attach(clock_ns());
      poll_devices(clock_ns(), false);
      drain_once(kMaxRecordsPerQueuePass);
    }
    // Before the final drain, while finish_process still waits for us: past
    // its timeout, exit goes on to tear libcuda down.
    poll_devices(clock_ns(), true);
    // CUPTI's finished work now: without atexit (quick_exit) nothing else
    // flushed it, and the periodic poll may not be due.
    if (GpuSource* source = gpu_source()) source->poll_now(*this);
    // Bounded: other threads may keep recording while the process exits.
    calibrate(true);
    for (int pass = 0; pass < 64 && drain_once(kMaxRecordsPerQueuePass) > 0; ++pass) {
    }
    write_footer();
    close_output();
  }
  finished_.store(true, std::memory_order_release);
  sem_post(&done_);
}

void Writer::calibrate(bool force) {
  uint64_t now = clock_ns();
  const uint64_t spacing =
      ticks_.ready() ? TickConverter::kMinSpacingNs : TickConverter::kMinFirstSpacingNs;
  if (now - last_pair_ns_ < spacing) {
    if (!force) return;
    if (!ticks_.ready()) {
      // A process that ends within a millisecond of its start still gets a rate.
      const uint64_t rest = spacing - (now - last_pair_ns_);
      timespec pause{0, static_cast<long>(rest)};
      nanosleep(&pause, nullptr);
      now = clock_ns();
    }
  }
  ticks_.add(take_calibration_pair());
  last_pair_ns_ = now;
}

void Writer::stock_chunks() {
  // Threads held, or a pool found below a quarter of its reserve, double the
  // reserve: a bursty program gets room before it needs it.
  const uint64_t held = holds().holds();
  if ((held != holds_seen_ || chunks_.free_chunks() < stock_target_ / 4) &&
      stock_target_ < ChunkPool::kMaxChunks / 2)
    stock_target_ *= 2;
  holds_seen_ = held;
  chunks_.stock(stock_target_);
}

void Writer::top_up() {
  // Between chunks of a long drain: recording threads must not wait for the
  // end of a pass to find memory.
  if (chunks_.free_chunks() < stock_target_ / 2) stock_chunks();
}

}  // namespace gprof
