// One queue per recording thread, any number of threads (docs/architecture.md §2.3). A
// queue is a chain of chunks the thread fills (collector/queues/thread_state.h) and
// the writer reads. A thread claims a queue on its first record, reusing one
// whose thread has exited and whose records the writer has read; queues are
// never unmapped, so a late reader never touches freed memory.
#pragma once

#include <atomic>
#include <cstdint>

#include "collector/queues/chunk_pool.h"

namespace gprof {

enum class QueueState : int { kFree = 0, kOwned = 1, kOrphaned = 2 };

struct alignas(64) ThreadQueue {
  std::atomic<int> state{0};
  std::atomic<uint32_t> tid{0};
  // The owner's first chunk, published when it claims the queue; the writer
  // takes it when it has no chunk of this queue to read.
  std::atomic<Chunk*> first{nullptr};
  ThreadQueue* next_queue = nullptr;  // the list is append-only

  // Writer-private.
  alignas(64) Chunk* read_chunk = nullptr;
  uint32_t read_offset = 0;
  uint32_t inline_name = 0;  // the id of the last QText, for the record after it
  uint64_t inline_seq = 0;   // and the emit_nvtx numbers split out of its text
  uint64_t inline_op_id = 0;
  uint64_t last_ns = 0;  // keeps converted times in order per thread
};

class ThreadQueues {
 public:
  // A queue for the calling thread (state kOwned), or nullptr when none can
  // be mapped.
  ThreadQueue* claim(uint32_t tid);
  // The owner thread has exited: the writer reads what is left, then frees it.
  static void orphan(ThreadQueue* queue) {
    queue->state.store(static_cast<int>(QueueState::kOrphaned), std::memory_order_release);
  }

  template <typename F>
  void for_each(F&& f) {
    for (ThreadQueue* q = head_.load(std::memory_order_acquire); q; q = q->next_queue) f(*q);
  }
  uint32_t threads_seen() const { return claims_.load(std::memory_order_relaxed); }

  // In a fork child: the parent's queues are forgotten, not freed.
  void reset_in_child();

 private:
  std::atomic<ThreadQueue*> head_{nullptr};
  std::atomic<uint32_t> claims_{0};
};

}  // namespace gprof
