// Everything the collector keeps per process, in static storage so that no
// allocation is needed to record (docs/architecture.md §2.1) and a fork child can
// abandon it without freeing anything.
#pragma once

#include <pthread.h>
#include <semaphore.h>

#include <atomic>
#include <cstdint>

#include "collector/gpu/cupti_status.h"
#include "collector/gpu/gpu_source.h"
#include "collector/interning/kernel_registry.h"
#include "collector/interning/string_table.h"
#include "collector/process/config.h"
#include "collector/queues/chunk_pool.h"
#include "collector/queues/thread_queues.h"
#include "collector/queues/timestamp.h"

namespace gprof {

class Writer;

enum class WriterState : int { kIdle, kStarting, kRunning, kFailed };

// All fields start as zero bytes, so the whole state lives in .bss.
struct ProcessState {
  ChunkPool chunks;
  ThreadQueues queues;
  KernelRegistry kernels;
  StringTable strings;
  pthread_key_t queue_key{};
  std::atomic<int> writer_state{static_cast<int>(WriterState::kIdle)};
  Writer* writer = nullptr;
  // The writer's wake-up semaphore once it runs; a thread posts it when it
  // takes a chunk, unless a wake-up is already pending.
  std::atomic<sem_t*> writer_wake{nullptr};
  std::atomic<bool> wake_pending{false};
  // This process is the child of a fork without exec: no CUDA calls here.
  std::atomic<bool> forked_child{false};
  // The (ticks, CLOCK_MONOTONIC) pair taken in the constructor: the start of
  // the writer's calibration.
  CalibrationPair start_pair;
  // How GPU activity is captured, and where the writer gets it (null while
  // CUPTI is not in use, and in a fork child).
  CuptiStatus cupti;
  std::atomic<GpuSource*> gpu_source{nullptr};
  // Another tool holds the CUPTI subscriber: hooks push external ids.
  std::atomic<bool> external_correlation{false};
};

// Inline: hooks reach it with one PC-relative address (hidden visibility).
extern constinit __attribute__((visibility("hidden"))) ProcessState g_process_state;
inline ProcessState& process_state() {
  return g_process_state;
}
const Config& process_config();

// Starts the writer the first time any thread records. False when recording
// is impossible (writer failed to start).
bool start_writer_once();
// Wakes the writer early (a chunk was taken, a thread waits for room); one
// sem_post per wake-up however many threads ask.
void wake_writer();

}  // namespace gprof
