// The process-wide recording state and the hot path used by every hook.
#pragma once

#include <atomic>
#include <cstdint>

#include "collector/config.h"
#include "collector/kernel_registry.h"
#include "collector/string_table.h"
#include "formats/record.h"

namespace gprof {

// True while hooks should record. A relaxed load: the cheapest possible
// check for hooks when recording is off.
extern std::atomic<bool> g_recording;
inline bool recording() {
  return g_recording.load(std::memory_order_relaxed);
}

// Hot path: stamps the thread id and pushes into the calling thread's ring;
// drops and counts when the ring is full. Never blocks, allocates or throws
// (the first call on a thread claims a ring; the first in the process also
// starts the writer thread).
void submit(ApiRecord& record);

// The same for an NVTX event.
void submit_range(RangeEvent& event);

KernelRegistry& kernel_registry();
StringTable& string_table();

// Lifecycle (collector/lifecycle.cc). Called once from the preload constructor.
void initialize_process();
// atexit: drain everything, write the footer, within the flush timeout.
void finish_process();

}  // namespace gprof
