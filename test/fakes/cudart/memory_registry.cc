#include "memory_registry.h"

#include <cstdlib>

namespace gprof_fake {
namespace {

constexpr uintptr_t kAlignment = 256;

}  // namespace

MemoryRegistry::~MemoryRegistry() {
  for (auto& [start, allocation] : allocations_) std::free(allocation.raw);
}

void* MemoryRegistry::Allocate(size_t size, GprofFakeMemoryKind kind, int device) {
  // calloc rather than aligned_alloc + memset: large blocks come from mmap as untouched zero
  // pages, so a program may "allocate" gigabytes of fake device memory it never writes.
  void* raw = std::calloc(1, size + kAlignment);
  if (raw == nullptr) return nullptr;
  const uintptr_t start = (reinterpret_cast<uintptr_t>(raw) + kAlignment - 1) & ~(kAlignment - 1);
  allocations_[start] = Allocation{size, kind, device, raw};
  return reinterpret_cast<void*>(start);
}

void MemoryRegistry::Adopt(void* ptr, size_t size, GprofFakeMemoryKind kind, int device) {
  allocations_[reinterpret_cast<uintptr_t>(ptr)] = Allocation{size, kind, device, nullptr};
}

bool MemoryRegistry::Free(void* ptr, unsigned kinds) {
  const auto it = allocations_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations_.end() || it->second.raw == nullptr) return false;
  if ((KindBit(it->second.kind) & kinds) == 0) return false;
  std::free(it->second.raw);
  allocations_.erase(it);
  return true;
}

void MemoryRegistry::FreeDevice(int device, unsigned kinds) {
  for (auto it = allocations_.begin(); it != allocations_.end();) {
    const Allocation& allocation = it->second;
    if (allocation.raw != nullptr && allocation.device == device &&
        (KindBit(allocation.kind) & kinds) != 0) {
      std::free(allocation.raw);
      it = allocations_.erase(it);
    } else {
      ++it;
    }
  }
}

const Allocation* MemoryRegistry::Find(const void* ptr, size_t size) const {
  const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  --it;
  const uintptr_t offset = address - it->first;
  if (offset >= it->second.size || size > it->second.size - offset) return nullptr;
  return &it->second;
}

GprofFakeMemoryKind MemoryRegistry::KindOf(const void* ptr) const {
  const Allocation* allocation = Find(ptr);
  return allocation == nullptr ? GPROF_FAKE_MEMORY_PAGEABLE : allocation->kind;
}

uint64_t MemoryRegistry::DeviceBytes(int device) const {
  uint64_t bytes = 0;
  for (const auto& [start, allocation] : allocations_) {
    if (allocation.raw != nullptr && allocation.device == device &&
        allocation.kind == GPROF_FAKE_MEMORY_DEVICE) {
      bytes += allocation.size;
    }
  }
  return bytes;
}

}  // namespace gprof_fake
