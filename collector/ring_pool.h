// A fixed set of rings, one per recording thread, mapped on first use and
// recycled when their thread exits and the writer has drained them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "collector/ring.h"

namespace gprof {

class RingPool {
 public:
  // `rings` slots of `ring_bytes` each. No memory is mapped until a claim.
  void configure(uint32_t rings, size_t ring_bytes);

  // Owner side: a free ring for the calling thread, or nullptr.
  Ring* claim(uint32_t tid);
  // The owner thread has exited; the writer drains and then frees it.
  static void orphan(Ring* ring);

  // Writer side: visits every ring in use; frees drained orphans.
  template <typename F>
  void for_each_in_use(F&& f) {
    uint32_t n = used_.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n; ++i) {
      Ring& ring = rings_[i];
      int state = ring.state.load(std::memory_order_acquire);
      if (state == static_cast<int>(RingState::kFree) ||
          !ring.mapped.load(std::memory_order_acquire))
        continue;
      f(ring);
      if (state == static_cast<int>(RingState::kOrphaned) && ring.empty())
        ring.state.store(static_cast<int>(RingState::kFree), std::memory_order_release);
    }
  }

  // After fork, in the child: the parent's records stay the parent's. Resets
  // indices without unmapping or locking anything.
  void reset_in_child();

  size_t capacity_records() const { return records_per_ring_; }

 private:
  static constexpr uint32_t kMaxRings = 4096;
  Ring rings_[kMaxRings];
  std::atomic<uint32_t> used_{0};  // high-water mark of slots ever claimed
  uint32_t ring_count_ = 0;
  size_t records_per_ring_ = 0;
};

}  // namespace gprof
