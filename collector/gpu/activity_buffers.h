// The pool of CUPTI activity buffers (docs/architecture.md §2.2): GPROF_CUPTI_BUFFERS
// mapped when CUPTI is set up, more mapped on demand up to a cap (a quarter of
// GPROF_MAX_MEMORY), handed to CUPTI from its buffer-request callback, handed
// back completed on any thread, parsed and recycled by the writer. Lock-free:
// CUPTI calls the callbacks from app threads and from its own. A request
// comes once per buffer filled, never per record, so mapping one there costs
// one mmap per megabyte of activity, and only while the writer is behind.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gprof {

class ActivityBuffers {
 public:
  static constexpr uint32_t kMaxBuffers = 256;
  // CUPTI requires 8-byte aligned buffers; mmap gives pages.
  static constexpr size_t kAlignment = 8;

  // Maps `count` buffers of `bytes` each now; the pool may grow to `max_count`
  // (at least `count`, at most kMaxBuffers). False (and nothing mapped) on
  // failure.
  bool allocate(uint32_t count, size_t bytes, uint32_t max_count = 0);
  // Buffers mapped so far.
  uint32_t count() const { return mapped_.load(std::memory_order_relaxed); }
  uint32_t max_count() const { return max_count_; }
  size_t buffer_bytes() const { return bytes_; }

  // CUPTI's request callback: a free buffer, a newly mapped one below the
  // cap, or nullptr when all are in use at the cap.
  uint8_t* acquire();
  // A buffer mapped past the cap (up to kMaxBuffers): for a request that
  // waiting cannot satisfy, because the writer that would free a buffer is
  // itself blocked inside CUPTI (session/buffers.cc). Counted in over_cap().
  uint8_t* acquire_over_cap();
  uint32_t over_cap() const { return over_cap_.load(std::memory_order_relaxed); }
  // CUPTI's completion callback. False when `buffer` is not one of ours.
  bool complete(uint8_t* buffer, size_t valid_bytes);

  // Writer: calls f(buffer, valid_bytes) for each completed buffer, in the
  // order they completed as far as the scan sees it, then recycles it.
  // Returns the number of buffers handed to f.
  template <typename F>
  uint32_t take_completed(F&& f) {
    uint32_t taken = 0;
    const uint32_t n = slots_used_.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n; ++i) {
      Slot& slot = slots_[i];
      if (slot.state.load(std::memory_order_acquire) != kCompleted) continue;
      f(slot.memory, slot.valid_bytes);
      // Zeroed here, off the program's threads, when CUPTI was told it gets
      // zeroed buffers (it zeroes them on the requesting thread otherwise).
      if (zero_on_recycle_) __builtin_memset(slot.memory, 0, slot.valid_bytes);
      slot.valid_bytes = 0;
      slot.state.store(kFree, std::memory_order_release);
      ++taken;
    }
    return taken;
  }
  // Buffers currently handed to CUPTI (for `gpuprof info` and tests).
  uint32_t in_use() const;
  // Writer, after a cuptiFinalize: CUPTI completes none of the buffers it
  // held (observed, CUPTI 13.0.1) and will never touch them again, so they
  // are free. Returns how many came back.
  uint32_t reclaim_from_finalized_cupti();
  // Hand every buffer back zeroed (mapped memory starts zeroed). Before
  // the first acquire.
  void zero_on_recycle(bool on) { zero_on_recycle_ = on; }

 private:
  // kMapping: claimed by the thread mapping its memory; no one else touches it.
  enum State : uint32_t { kFree = 0, kWithCupti = 1, kCompleted = 2, kMapping = 3 };
  struct Slot {
    std::atomic<uint32_t> state{kMapping};
    uint8_t* memory = nullptr;  // set before the slot first leaves kMapping
    size_t valid_bytes = 0;
  };
  uint8_t* grow(uint32_t limit);

  Slot slots_[kMaxBuffers];
  size_t bytes_ = 0;
  uint32_t max_count_ = 0;
  // Slots claimed (mapped or being mapped), and buffers mapped.
  std::atomic<uint32_t> slots_used_{0};
  std::atomic<uint32_t> mapped_{0};
  // Where the next acquire starts scanning, so buffers are used round-robin.
  std::atomic<uint32_t> next_{0};
  std::atomic<uint32_t> over_cap_{0};
  bool zero_on_recycle_ = false;
};

}  // namespace gprof
