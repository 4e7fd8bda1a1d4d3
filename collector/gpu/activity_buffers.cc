#include "collector/gpu/activity_buffers.h"

#include <sys/mman.h>

namespace gprof {

bool ActivityBuffers::allocate(uint32_t count, size_t bytes, uint32_t max_count) {
  if (slots_used_.load(std::memory_order_relaxed) != 0 || count == 0 || count > kMaxBuffers ||
      bytes < 4096)
    return false;
  bytes = (bytes + 4095) & ~size_t{4095};
  void* p = mmap(nullptr, static_cast<size_t>(count) * bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  bytes_ = bytes;
  max_count_ = max_count < count ? count : (max_count > kMaxBuffers ? kMaxBuffers : max_count);
  for (uint32_t i = 0; i < count; ++i) {
    slots_[i].memory = static_cast<uint8_t*>(p) + static_cast<size_t>(i) * bytes;
    slots_[i].state.store(kFree, std::memory_order_relaxed);
  }
  mapped_.store(count, std::memory_order_relaxed);
  slots_used_.store(count, std::memory_order_release);
  return true;
}

uint8_t* ActivityBuffers::acquire() {
  const uint32_t n = slots_used_.load(std::memory_order_acquire);
  if (n != 0) {
    const uint32_t start = next_.fetch_add(1, std::memory_order_relaxed);
    for (uint32_t k = 0; k < n; ++k) {
      Slot& slot = slots_[(start + k) % n];
      uint32_t expected = kFree;
      if (slot.state.compare_exchange_strong(expected, kWithCupti, std::memory_order_acq_rel))
        return slot.memory;
    }
  }
  return grow(max_count_);
}

uint8_t* ActivityBuffers::acquire_over_cap() {
  if (uint8_t* b = acquire()) return b;
  uint8_t* b = grow(kMaxBuffers);
  if (b) over_cap_.fetch_add(1, std::memory_order_relaxed);
  return b;
}

uint8_t* ActivityBuffers::grow(uint32_t limit) {
  uint32_t i = slots_used_.load(std::memory_order_relaxed);
  do {
    if (i == 0 || i >= limit) return nullptr;  // not allocated, or at the limit
  } while (!slots_used_.compare_exchange_weak(i, i + 1, std::memory_order_acq_rel));
  // Slot i is ours (kMapping): scans that see it skip it until it is handed out.
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;  // the slot stays unusable, the cap one lower
  slots_[i].memory = static_cast<uint8_t*>(p);
  mapped_.fetch_add(1, std::memory_order_relaxed);
  slots_[i].state.store(kWithCupti, std::memory_order_release);
  return slots_[i].memory;
}

bool ActivityBuffers::complete(uint8_t* buffer, size_t valid_bytes) {
  if (buffer == nullptr) return false;
  const uint32_t n = slots_used_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    Slot& slot = slots_[i];
    if (slot.state.load(std::memory_order_acquire) != kWithCupti || slot.memory != buffer) continue;
    slot.valid_bytes = valid_bytes <= bytes_ ? valid_bytes : bytes_;
    slot.state.store(kCompleted, std::memory_order_release);
    return true;
  }
  return false;
}

uint32_t ActivityBuffers::reclaim_from_finalized_cupti() {
  uint32_t reclaimed = 0;
  const uint32_t n = slots_used_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    Slot& slot = slots_[i];
    if (slot.state.load(std::memory_order_acquire) != kWithCupti) continue;
    // CUPTI may have written records into it before it let go.
    if (zero_on_recycle_) __builtin_memset(slot.memory, 0, bytes_);
    slot.valid_bytes = 0;
    uint32_t with_cupti = kWithCupti;
    if (slot.state.compare_exchange_strong(with_cupti, kFree, std::memory_order_acq_rel))
      ++reclaimed;
  }
  return reclaimed;
}

uint32_t ActivityBuffers::in_use() const {
  uint32_t n = 0;
  const uint32_t used = slots_used_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < used; ++i)
    if (slots_[i].state.load(std::memory_order_relaxed) == kWithCupti) ++n;
  return n;
}

}  // namespace gprof
