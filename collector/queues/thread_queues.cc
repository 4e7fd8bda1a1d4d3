#include "collector/queues/thread_queues.h"

#include <sys/mman.h>

#include <new>

namespace gprof {

ThreadQueue* ThreadQueues::claim(uint32_t tid) {
  claims_.fetch_add(1, std::memory_order_relaxed);
  for (ThreadQueue* q = head_.load(std::memory_order_acquire); q; q = q->next_queue) {
    int expected = static_cast<int>(QueueState::kFree);
    if (q->state.load(std::memory_order_relaxed) == expected &&
        q->state.compare_exchange_strong(expected, static_cast<int>(QueueState::kOwned),
                                         std::memory_order_acq_rel)) {
      q->tid.store(tid, std::memory_order_relaxed);
      return q;
    }
  }
  // mmap, not malloc: the host's allocator may be in any state here.
  void* memory = mmap(nullptr, sizeof(ThreadQueue), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  auto* q = new (memory) ThreadQueue;
  q->state.store(static_cast<int>(QueueState::kOwned), std::memory_order_relaxed);
  q->tid.store(tid, std::memory_order_relaxed);
  ThreadQueue* head = head_.load(std::memory_order_relaxed);
  do {
    q->next_queue = head;
  } while (
      !head_.compare_exchange_weak(head, q, std::memory_order_release, std::memory_order_relaxed));
  return q;
}

void ThreadQueues::reset_in_child() {
  head_.store(nullptr, std::memory_order_relaxed);
  claims_.store(0, std::memory_order_relaxed);
}

}  // namespace gprof
