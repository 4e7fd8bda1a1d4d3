#include "collector/ring_pool.h"

#include <sys/mman.h>

namespace gprof {

void RingPool::configure(uint32_t rings, size_t ring_bytes) {
  ring_count_ = rings < kMaxRings ? rings : kMaxRings;
  size_t records = 1;
  while (records * 2 * sizeof(ApiRecord) <= ring_bytes) records *= 2;
  records_per_ring_ = records < 16 ? 16 : records;
}

Ring* RingPool::claim(uint32_t tid) {
  for (uint32_t i = 0; i < ring_count_; ++i) {
    Ring& ring = rings_[i];
    int expected = static_cast<int>(RingState::kFree);
    if (!ring.state.compare_exchange_strong(expected, static_cast<int>(RingState::kOwned),
                                            std::memory_order_acq_rel))
      continue;
    if (!ring.slots) {
      // mmap, not malloc: the host's allocator may be in any state here.
      void* memory = mmap(nullptr, records_per_ring_ * sizeof(ApiRecord), PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (memory == MAP_FAILED) {
        ring.state.store(static_cast<int>(RingState::kFree), std::memory_order_release);
        return nullptr;
      }
      ring.mask = records_per_ring_ - 1;
      ring.slots = static_cast<ApiRecord*>(memory);
      ring.mapped.store(true, std::memory_order_release);
    }
    ring.tid.store(tid, std::memory_order_relaxed);
    ring.cached_head = ring.head.load(std::memory_order_acquire);
    uint32_t used = used_.load(std::memory_order_relaxed);
    while (used < i + 1 && !used_.compare_exchange_weak(used, i + 1, std::memory_order_acq_rel)) {
    }
    return &ring;
  }
  return nullptr;
}

void RingPool::orphan(Ring* ring) {
  ring->state.store(static_cast<int>(RingState::kOrphaned), std::memory_order_release);
}

void RingPool::reset_in_child() {
  uint32_t n = used_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i) {
    Ring& ring = rings_[i];
    ring.head.store(0, std::memory_order_relaxed);
    ring.tail.store(0, std::memory_order_relaxed);
    ring.cached_head = 0;
    ring.state.store(static_cast<int>(RingState::kFree), std::memory_order_relaxed);
  }
}

}  // namespace gprof
