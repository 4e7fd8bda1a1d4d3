// Allocation: device memory is zeroed host memory, limited per device by GPROF_FAKE_DEVICE_MEM so
// that out-of-memory paths can be tested. Stream-ordered allocation takes effect at once, which is
// safe because the fake performs copies and sets when they are issued.
#include <mutex>

#include "api_call.h"
#include "cuda_abi.h"
#include "issue.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

constexpr unsigned kDeviceKinds =
    KindBit(GPROF_FAKE_MEMORY_DEVICE) | KindBit(GPROF_FAKE_MEMORY_MANAGED);
constexpr unsigned kHostAllocFlags =
    cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;

// Requires runtime.mu.
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

// cudaFree and cudaFreeHost implicitly synchronize the device, as the real ones do.
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

cudaError_t MallocAsync(void** ptr, size_t size, cudaStream_t stream, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  return Allocate(runtime, ptr, size, GPROF_FAKE_MEMORY_DEVICE);
}

cudaError_t FreeAsync(void* ptr, cudaStream_t stream, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  if (ptr == nullptr) return cudaSuccess;
  return runtime.memory.Free(ptr, KindBit(GPROF_FAKE_MEMORY_DEVICE)) ? cudaSuccess
                                                                     : cudaErrorInvalidValue;
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;

extern "C" cudaError_t CUDARTAPI cudaMalloc(void** devPtr, size_t size) {
  ApiCall call("cudaMalloc");
  return call.Return(gprof_fake::AllocateLocked(devPtr, size, GPROF_FAKE_MEMORY_DEVICE));
}

extern "C" cudaError_t CUDARTAPI cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  ApiCall call("cudaMallocManaged");
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
    return call.Return(cudaErrorInvalidValue);
  }
  return call.Return(gprof_fake::AllocateLocked(devPtr, size, GPROF_FAKE_MEMORY_MANAGED));
}

extern "C" cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t size) {
  ApiCall call("cudaMallocHost");
  return call.Return(gprof_fake::AllocateLocked(ptr, size, GPROF_FAKE_MEMORY_PINNED));
}

extern "C" cudaError_t CUDARTAPI cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  ApiCall call("cudaHostAlloc");
  if ((flags & ~gprof_fake::kHostAllocFlags) != 0) return call.Return(cudaErrorInvalidValue);
  return call.Return(gprof_fake::AllocateLocked(pHost, size, GPROF_FAKE_MEMORY_PINNED));
}

extern "C" cudaError_t CUDARTAPI cudaFree(void* devPtr) {
  ApiCall call("cudaFree");
  return call.Return(gprof_fake::FreeAndSynchronize(devPtr, gprof_fake::kDeviceKinds));
}

extern "C" cudaError_t CUDARTAPI cudaFreeHost(void* ptr) {
  ApiCall call("cudaFreeHost");
  return call.Return(
      gprof_fake::FreeAndSynchronize(ptr, gprof_fake::KindBit(GPROF_FAKE_MEMORY_PINNED)));
}

extern "C" cudaError_t CUDARTAPI cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  ApiCall call("cudaMallocAsync");
  return call.Return(gprof_fake::MallocAsync(devPtr, size, hStream, /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void** devPtr, size_t size,
                                                      cudaStream_t hStream) {
  ApiCall call("cudaMallocAsync_ptsz");
  return call.Return(gprof_fake::MallocAsync(devPtr, size, hStream, /*per_thread=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  ApiCall call("cudaFreeAsync");
  return call.Return(gprof_fake::FreeAsync(devPtr, hStream, /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void* devPtr, cudaStream_t hStream) {
  ApiCall call("cudaFreeAsync_ptsz");
  return call.Return(gprof_fake::FreeAsync(devPtr, hStream, /*per_thread=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaMemGetInfo(size_t* free, size_t* total) {
  ApiCall call("cudaMemGetInfo");
  auto& runtime = gprof_fake::GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (const cudaError_t error = gprof_fake::RequireDevice(runtime); error != cudaSuccess) {
    return call.Return(error);
  }
  if (free == nullptr || total == nullptr) return call.Return(cudaErrorInvalidValue);
  const uint64_t capacity = runtime.config.device_memory_bytes;
  const uint64_t used = runtime.memory.DeviceBytes(gprof_fake::CurrentDevice());
  *total = capacity;
  *free = used < capacity ? capacity - used : 0;
  return call.Return(cudaSuccess);
}
