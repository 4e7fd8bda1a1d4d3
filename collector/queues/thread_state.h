// Everything a recording thread keeps for itself, in one thread_local so that
// a hook resolves one TLS address (docs/architecture.md §2.1, §2.5: global-dynamic TLS,
// constant-initialized, no TLS wrapper). The hot path writes a record in
// place at `cursor` and publishes it with one release store; the slow path
// (a full chunk, the thread's first record) is out of line in recorder.cc.
#pragma once

#include <atomic>
#include <cstdint>

#include "collector/queues/chunk_pool.h"
#include "collector/queues/thread_queues.h"

namespace gprof {

// Room kept back at the end of every chunk for the records that close one
// already recorded (a pop): under GPROF_ON_FULL=drop a push is dropped when
// no chunk is free, but a pop whose push was kept always finds room, so no
// half of a pair is lost and the thread is not held for it.
inline constexpr uint32_t kKeptBack = 2048;  // 128 open ranges x a 16-byte pop

// Where an NVTX text that was not read-only lay: the addresses between the
// read-only segments around it, as of one scan of the loaded objects
// (collector/interning/readonly_text.h). A thread keeps the last one, so that
// its next unique name, formatted in the same heap block or stack buffer as
// emit_nvtx's are, is known writable with two comparisons instead of a
// search behind a flag that every thread shares. It only ever answers
// "writable", which is always safe (the text then goes as text): a gap from
// before a scan that found an object loaded into it does no harm.
struct WritableGap {
  uint64_t scan = 0;  // 0: none
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

struct ThreadState {
  // The queue being filled: records go at `cursor`, up to `end` (kKeptBack
  // before the chunk's end; only reserve_slow hands out what lies past it). Both null
  // until the thread's first record, and again after its queue is orphaned
  // (a late record claims a new queue; two writers never share one).
  char* cursor;
  char* end;
  Chunk* chunk;
  ThreadQueue* queue;
  // The correlation id slot of the interposed call in progress; CUPTI's
  // callback for the same call fills it (docs/architecture.md §3.1).
  uint64_t* interposed;
  // The CUPTI-recorded call in progress (the driver calls a runtime call
  // makes are nested inside it and not recorded again): its start (0: none),
  // and the correlation id and domain its EXIT must match. An EXIT without
  // its ENTER matches nothing, so it can neither close nor unbalance it.
  uint64_t cupti_open_start;
  uint32_t cupti_open_id;
  uint32_t cupti_open_domain;
  // NVTX push/pop nesting of this thread: NVTX's return values, capture
  // windows (the flags of each open range's name) and pairs dropped whole.
  int32_t nvtx_depth;
  // gprof's writer thread: it is what others wait for, so it never waits.
  bool is_writer;
  static constexpr int kMaxDepth = 128;
  uint8_t nvtx_flags[kMaxDepth];
  WritableGap writable_gap;
};

// Named for collector/queues/static_tls.cc, which reads its TLS descriptor.
extern constinit __attribute__((visibility("hidden"))) thread_local ThreadState t_thread asm(
    "gprof_thread_state");

// The calling thread's state, looked up once: with global-dynamic TLS each
// lookup is a call to __tls_get_addr, and the compiler would otherwise redo
// it after every call a hook makes.
inline ThreadState& this_thread() {
  ThreadState* t = &t_thread;
  asm("" : "+r"(t));
  return *t;
}

// Out of line: the first record of a thread, or a full chunk. Returns where
// `size` bytes may be written, or nullptr when the record is dropped (counted
// here). `must_keep`: the record closes one already recorded (a pop), so it
// waits for room even under GPROF_ON_FULL=drop.
char* reserve_slow(ThreadState& t, uint32_t size, bool must_keep);

// The thread-exit destructor of the queue key (pthread_key_create).
void orphan_thread_queue(void* queue);

// `size` bytes at `p` stay below `end` (both null before the thread's first
// record: compared as integers, no arithmetic on a null pointer).
inline bool fits(const char* p, size_t size, const char* end) {
  return reinterpret_cast<uintptr_t>(p) + size <= reinterpret_cast<uintptr_t>(end);
}

template <typename Record>
inline Record* reserve(ThreadState& t, bool must_keep = false) {
  char* p = t.cursor;
  if (__builtin_expect(!fits(p, sizeof(Record), t.end), 0))
    p = reserve_slow(t, sizeof(Record), must_keep);
  return reinterpret_cast<Record*>(p);
}

// Publishes the record reserved last: the single-producer release store.
inline void commit(ThreadState& t, uint32_t size) {
  char* next = t.cursor + size;
  t.cursor = next;
  t.chunk->committed.store(next, std::memory_order_release);
}

// The same, where the caller kept the record's end.
inline void commit_at(ThreadState& t, char* next) {
  t.cursor = next;
  t.chunk->committed.store(next, std::memory_order_release);
}

// Publishes everything up to the cursor (records claimed by moving the
// cursor first: a launch's, which is finished after the real call).
inline void commit_claimed(ThreadState& t) {
  t.chunk->committed.store(t.cursor, std::memory_order_release);
}

}  // namespace gprof
