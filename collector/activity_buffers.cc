#include "collector/activity_buffers.h"

#include <sys/mman.h>

namespace gprof {

bool ActivityBuffers::allocate(uint32_t count, size_t bytes) {
  if (memory_ != nullptr || count == 0 || count > kMaxBuffers || bytes < 4096) return false;
  bytes = (bytes + 4095) & ~size_t{4095};
  void* p = mmap(nullptr, static_cast<size_t>(count) * bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  memory_ = static_cast<uint8_t*>(p);
  bytes_ = bytes;
  count_ = count;
  return true;
}

uint8_t* ActivityBuffers::acquire() {
  const uint32_t start = next_.fetch_add(1, std::memory_order_relaxed);
  for (uint32_t k = 0; k < count_; ++k) {
    const uint32_t i = (start + k) % count_;
    uint32_t expected = kFree;
    if (slots_[i].state.compare_exchange_strong(expected, kWithCupti, std::memory_order_acq_rel))
      return base(i);
  }
  return nullptr;
}

bool ActivityBuffers::complete(uint8_t* buffer, size_t valid_bytes) {
  if (memory_ == nullptr || buffer < memory_) return false;
  const size_t offset = static_cast<size_t>(buffer - memory_);
  if (offset % bytes_ != 0 || offset / bytes_ >= count_) return false;
  Slot& slot = slots_[offset / bytes_];
  if (slot.state.load(std::memory_order_acquire) != kWithCupti) return false;
  slot.valid_bytes = valid_bytes <= bytes_ ? valid_bytes : bytes_;
  slot.state.store(kCompleted, std::memory_order_release);
  return true;
}

uint32_t ActivityBuffers::in_use() const {
  uint32_t n = 0;
  for (uint32_t i = 0; i < count_; ++i)
    if (slots_[i].state.load(std::memory_order_relaxed) == kWithCupti) ++n;
  return n;
}

}  // namespace gprof
