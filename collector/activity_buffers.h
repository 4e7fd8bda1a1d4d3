// The pool of CUPTI activity buffers (DESIGN.md §2.6): allocated once when
// CUPTI is set up, handed to CUPTI from its buffer-request callback, handed
// back completed on any thread, parsed and recycled by the writer. Lock-free:
// CUPTI calls the callbacks from app threads and from its own.
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

  // Maps `count` buffers of `bytes` each. False (and nothing mapped) on failure.
  bool allocate(uint32_t count, size_t bytes);
  uint32_t count() const { return count_; }
  size_t buffer_bytes() const { return bytes_; }

  // CUPTI's request callback: a free buffer, or nullptr when all are in use.
  uint8_t* acquire();
  // CUPTI's completion callback. False when `buffer` is not one of ours.
  bool complete(uint8_t* buffer, size_t valid_bytes);

  // Writer: calls f(buffer, valid_bytes) for each completed buffer, in the
  // order they completed as far as the scan sees it, then recycles it.
  // Returns the number of buffers handed to f.
  template <typename F>
  uint32_t take_completed(F&& f) {
    uint32_t taken = 0;
    for (uint32_t i = 0; i < count_; ++i) {
      Slot& slot = slots_[i];
      if (slot.state.load(std::memory_order_acquire) != kCompleted) continue;
      f(base(i), slot.valid_bytes);
      slot.valid_bytes = 0;
      slot.state.store(kFree, std::memory_order_release);
      ++taken;
    }
    return taken;
  }
  // Buffers currently handed to CUPTI (for `gpuprof info` and tests).
  uint32_t in_use() const;

 private:
  enum State : uint32_t { kFree = 0, kWithCupti = 1, kCompleted = 2 };
  struct Slot {
    std::atomic<uint32_t> state{kFree};
    size_t valid_bytes = 0;
  };
  uint8_t* base(uint32_t i) const { return memory_ + static_cast<size_t>(i) * bytes_; }

  Slot slots_[kMaxBuffers];
  uint8_t* memory_ = nullptr;
  size_t bytes_ = 0;
  uint32_t count_ = 0;
  // Where the next acquire starts scanning, so buffers are used round-robin.
  std::atomic<uint32_t> next_{0};
};

}  // namespace gprof
