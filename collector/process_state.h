// Everything the collector keeps per process, in static storage so that no
// allocation is needed to record (DESIGN.md §2.1) and a fork child can
// abandon it without freeing anything.
#pragma once

#include <pthread.h>
#include <semaphore.h>

#include <atomic>
#include <cstdint>

#include "collector/config.h"
#include "collector/cupti_status.h"
#include "collector/gpu_source.h"
#include "collector/kernel_registry.h"
#include "collector/ring_pool.h"
#include "collector/string_table.h"

namespace gprof {

class Writer;

enum class WriterState : int { kIdle, kStarting, kRunning, kFailed };

// All fields start as zero bytes, so the whole state lives in .bss.
struct ProcessState {
  RingPool rings;
  KernelRegistry kernels;
  StringTable strings;
  pthread_key_t ring_key{};
  // Bumped in a fork child: rings claimed before the fork are not its own.
  std::atomic<uint32_t> generation{0};
  std::atomic<int> writer_state{static_cast<int>(WriterState::kIdle)};
  Writer* writer = nullptr;
  // The writer's wake-up semaphore once it runs; hooks post it when a ring
  // is half full.
  std::atomic<sem_t*> writer_wake{nullptr};
  // How GPU activity is captured, and where the writer gets it (null while
  // CUPTI is not in use, and in a fork child).
  CuptiStatus cupti;
  std::atomic<GpuSource*> gpu_source{nullptr};
  // Another tool holds the CUPTI subscriber: hooks push external ids.
  std::atomic<bool> external_correlation{false};
};

ProcessState& process_state();
const Config& process_config();

// Starts the writer the first time any thread records. False when recording
// is impossible (writer failed to start).
bool start_writer_once();

}  // namespace gprof
