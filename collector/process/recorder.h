// The process-wide recording state and the entry points hooks record through.
// The hot path itself is inline (collector/queues/thread_state.h); this is what it
// calls when it is not enough.
#pragma once

#include <atomic>
#include <cstdint>

#include "collector/interning/kernel_registry.h"
#include "collector/interning/string_table.h"
#include "collector/process/config.h"
#include "collector/process/process_state.h"
#include "formats/record.h"

namespace gprof {

// True while hooks should record. A relaxed load: the cheapest possible
// check for hooks when recording is off.
extern __attribute__((visibility("hidden"))) std::atomic<bool> g_recording;
inline bool recording() {
  return g_recording.load(std::memory_order_relaxed);
}
// Recording, timestamps are TSC ticks, and the thread state is in static TLS:
// the one byte the hooks' fast paths test before they read the TSC directly
// (tsc_ticks()) and find their thread state without a call (fast_thread()).
extern __attribute__((visibility("hidden"))) std::atomic<bool> g_fast_record;
inline bool fast_record() {
  return g_fast_record.load(std::memory_order_relaxed);
}

// fast_record(), and no external correlation ids to push around each call:
// the one byte the launch hooks' fast paths test.
extern __attribute__((visibility("hidden"))) std::atomic<bool> g_fast_launch;
inline bool fast_launch() {
  return g_fast_launch.load(std::memory_order_relaxed);
}
// After g_fast_record or ProcessState::external_correlation changed.
void refresh_fast_launch();

// An API call described in full (CUPTI callbacks, which are not on the
// interposed hot path): times are timestamp() ticks. A launch's `kernel` is
// its id; the record keeps no host stub.
void submit(const ApiRecord& record);

// A name the writer interns (QText): the text, and where the program keeps it
// (0 when `text` is a conversion of the program's, not its own bytes).
struct InlineText {
  const char* text = nullptr;
  uint32_t size = 0;
  uint64_t address = 0;
};

// An NVTX event described in full (marks, start/end, attributes); time in
// timestamp() ticks; its seq and op_id are not kept (they come with a text). With
// `inline_text.text`, the event's name is that text (name == kInlineName), sent ahead of the event.
// False when it was dropped.
bool submit_range(const RangeEvent& event, const InlineText& inline_text = {},
                  bool must_keep = false);
// The hot push of a name sent as text: QText then a 16-byte QPush.
bool submit_text_push(const InlineText& text, uint64_t time);

// GPROF_ON_FULL=wait at the memory cap: calls take(context) until it gives
// room, holding the calling thread (at most GPROF_MAX_WAIT_MS, never once
// recording has stopped). Counted in holds(); nullptr after a timeout
// (counted as wait_timeout when `count_timeout`: a caller whose lost records
// are counted elsewhere, CUPTI's, passes false). Slow path only: it yields
// and sleeps. On the writer thread it returns nullptr at once.
void* hold_for_writer(void* (*take)(void*), void* context, bool count_timeout = true);
// What take() returns to end a hold at once without room: what it waits for
// cannot come (the writer is blocked on the holding thread).
void* hold_give_up();

inline KernelRegistry& kernel_registry() {
  return process_state().kernels;
}
inline StringTable& string_table() {
  return process_state().strings;
}

// Lifecycle (collector/process/lifecycle.cc). Called once from the preload constructor.
void initialize_process();
// atexit: drain everything, write the footer, within the flush timeout.
void finish_process();

}  // namespace gprof
