// Every byte range the runtime handed out: device memory (which is host memory here), pinned
// host memory, managed memory, and the storage behind __device__ variables. It answers "what
// kind of memory is this pointer in" (cudaMemcpyDefault, CUPTI memory kinds) and "is this range
// valid" (so that a bad copy is an error, not a crash). Not thread-safe: the runtime's lock
// guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

#include "fake_gpu_observer.h"

namespace gprof_fake {

struct Allocation {
  size_t size = 0;
  GprofFakeMemoryKind kind = GPROF_FAKE_MEMORY_DEVICE;
  int device = 0;
  void* raw = nullptr;  // what calloc returned; null for storage the registry does not own
};

class MemoryRegistry {
 public:
  MemoryRegistry() = default;
  ~MemoryRegistry();
  MemoryRegistry(const MemoryRegistry&) = delete;
  MemoryRegistry& operator=(const MemoryRegistry&) = delete;

  // Zeroed (so that results are deterministic), 256-byte aligned like cudaMalloc; null when the
  // host is out of memory. `size` must be nonzero.
  void* Allocate(size_t size, GprofFakeMemoryKind kind, int device);
  // Registers storage owned by someone else (__device__ variables).
  void Adopt(void* ptr, size_t size, GprofFakeMemoryKind kind, int device);
  // Releases an allocation that starts at `ptr` and has one of the kinds in `kinds` (a bit mask
  // of 1 << GprofFakeMemoryKind). False when there is none.
  bool Free(void* ptr, unsigned kinds);
  // Releases every allocation of these kinds on `device` (cudaDeviceReset).
  void FreeDevice(int device, unsigned kinds);

  // The allocation that contains [ptr, ptr + size), or null.
  const Allocation* Find(const void* ptr, size_t size = 1) const;
  // Pageable when the runtime did not allocate it.
  GprofFakeMemoryKind KindOf(const void* ptr) const;
  // Bytes of device memory (kind DEVICE, owned) live on `device`.
  uint64_t DeviceBytes(int device) const;

 private:
  std::map<uintptr_t, Allocation> allocations_;  // keyed by start address
};

constexpr unsigned KindBit(GprofFakeMemoryKind kind) {
  return 1u << kind;
}

}  // namespace gprof_fake
