#include "allocation.h"

#include <cstdint>
#include <mutex>

#include "issue.h"

namespace gprof_fake {

cudaError_t Allocate(Runtime& runtime, void** ptr, size_t size, GprofFakeMemoryKind kind) {
  if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
  if (ptr == nullptr) return cudaErrorInvalidValue;
  if (size == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  const int device = CurrentDevice();
  if (kind == GPROF_FAKE_MEMORY_DEVICE) {
    const uint64_t used = runtime.memory.DeviceBytes(device);
    const uint64_t capacity = runtime.config.device_memory_bytes;
    if (used > capacity || size > capacity - used) return cudaErrorMemoryAllocation;
  }
  void* allocated = runtime.memory.Allocate(size, kind, device);
  if (allocated == nullptr) return cudaErrorMemoryAllocation;
  *ptr = allocated;
  return cudaSuccess;
}

cudaError_t AllocateLocked(void** ptr, size_t size, GprofFakeMemoryKind kind) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return Allocate(runtime, ptr, size, kind);
}

cudaError_t FreeAndSynchronize(void* ptr, unsigned kinds) {
  auto& runtime = GetRuntime();
  int64_t done_ns = 0;
  {
    std::lock_guard lock(runtime.mu);
    if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
    if (ptr == nullptr) return cudaSuccess;
    if (!runtime.memory.Free(ptr, kinds)) return cudaErrorInvalidValue;
    done_ns = runtime.timeline.DeviceDoneNs(CurrentDevice());
  }
  HostWait(done_ns);
  return cudaSuccess;
}

}  // namespace gprof_fake
