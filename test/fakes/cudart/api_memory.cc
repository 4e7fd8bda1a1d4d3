// Allocation: device memory is zeroed host memory, limited per device by GPROF_FAKE_DEVICE_MEM so
// that out-of-memory paths can be tested. Stream-ordered allocation takes effect at once, which is
// safe because the fake performs copies and sets when they are issued.
#include <mutex>

#include "allocation.h"
#include "api_call.h"
#include "cuda_abi.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

constexpr unsigned kHostAllocFlags =
    cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;

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
  const cudaMalloc_v3020_params params{devPtr, size};
  ApiCall call("cudaMalloc", CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &params);
  return call.Return(gprof_fake::AllocateLocked(devPtr, size, GPROF_FAKE_MEMORY_DEVICE));
}

extern "C" cudaError_t CUDARTAPI cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  const cudaMallocManaged_v6000_params params{devPtr, size, flags};
  ApiCall call("cudaMallocManaged", CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000, &params);
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
    return call.Return(cudaErrorInvalidValue);
  }
  return call.Return(gprof_fake::AllocateLocked(devPtr, size, GPROF_FAKE_MEMORY_MANAGED));
}

extern "C" cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t size) {
  const cudaMallocHost_v3020_params params{ptr, size};
  ApiCall call("cudaMallocHost", CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, &params);
  return call.Return(gprof_fake::AllocateLocked(ptr, size, GPROF_FAKE_MEMORY_PINNED));
}

extern "C" cudaError_t CUDARTAPI cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  const cudaHostAlloc_v3020_params params{pHost, size, flags};
  ApiCall call("cudaHostAlloc", CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020, &params);
  if ((flags & ~gprof_fake::kHostAllocFlags) != 0) return call.Return(cudaErrorInvalidValue);
  return call.Return(gprof_fake::AllocateLocked(pHost, size, GPROF_FAKE_MEMORY_PINNED));
}

extern "C" cudaError_t CUDARTAPI cudaFree(void* devPtr) {
  const cudaFree_v3020_params params{devPtr};
  ApiCall call("cudaFree", CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, &params);
  return call.Return(gprof_fake::FreeAndSynchronize(devPtr, gprof_fake::kDeviceKinds));
}

extern "C" cudaError_t CUDARTAPI cudaFreeHost(void* ptr) {
  const cudaFreeHost_v3020_params params{ptr};
  ApiCall call("cudaFreeHost", CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, &params);
  return call.Return(
      gprof_fake::FreeAndSynchronize(ptr, gprof_fake::KindBit(GPROF_FAKE_MEMORY_PINNED)));
}

extern "C" cudaError_t CUDARTAPI cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  const cudaMallocAsync_v11020_params params{devPtr, size, hStream};
  ApiCall call("cudaMallocAsync", CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, &params);
  return call.Return(gprof_fake::MallocAsync(devPtr, size, hStream, /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void** devPtr, size_t size,
                                                      cudaStream_t hStream) {
  const cudaMallocAsync_ptsz_v11020_params params{devPtr, size, hStream};
  ApiCall call("cudaMallocAsync_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020,
               &params);
  return call.Return(gprof_fake::MallocAsync(devPtr, size, hStream, /*per_thread=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  const cudaFreeAsync_v11020_params params{devPtr, hStream};
  ApiCall call("cudaFreeAsync", CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020, &params);
  return call.Return(gprof_fake::FreeAsync(devPtr, hStream, /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void* devPtr, cudaStream_t hStream) {
  const cudaFreeAsync_ptsz_v11020_params params{devPtr, hStream};
  ApiCall call("cudaFreeAsync_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020, &params);
  return call.Return(gprof_fake::FreeAsync(devPtr, hStream, /*per_thread=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaMemGetInfo(size_t* free, size_t* total) {
  const cudaMemGetInfo_v3020_params params{free, total};
  ApiCall call("cudaMemGetInfo", CUPTI_RUNTIME_TRACE_CBID_cudaMemGetInfo_v3020, &params);
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
