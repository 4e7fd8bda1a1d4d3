// Device, pinned-host and managed allocations and frees.
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/hook_name.h"
#include "inject/real_function.h"

using namespace gprof::inject;
using gprof::ApiId;

namespace {

void set_allocation(ApiCall& call, cudaError_t result, void** ptr, size_t size,
                    cudaStream_t stream) {
  if (!call.active()) return;
  call.record().bytes = size;
  call.record().address = (result == cudaSuccess && ptr) ? handle(*ptr) : 0;
  call.record().stream = handle(stream);
}

}  // namespace

#define ALLOC_HOOK(name, params, args, ptr_arg, size_arg, stream_arg) \
  cudaError_t CUDARTAPI GPROF_HOOK(name) params {                     \
    auto real = REAL(name);                                           \
    if (!real) return kMissing;                                       \
    ApiCall call(ApiId::name);                                        \
    cudaError_t result = real args;                                   \
    set_allocation(call, result, ptr_arg, size_arg, stream_arg);      \
    return call.finish(result);                                       \
  }

#define FREE_HOOK(name, params, args, ptr_arg, stream_arg) \
  cudaError_t CUDARTAPI GPROF_HOOK(name) params {          \
    auto real = REAL(name);                                \
    if (!real) return kMissing;                            \
    ApiCall call(ApiId::name);                             \
    cudaError_t result = real args;                        \
    call.record().address = handle(ptr_arg);               \
    call.record().stream = handle(stream_arg);             \
    return call.finish(result);                            \
  }

extern "C" {

ALLOC_HOOK(cudaMalloc, (void** ptr, size_t size), (ptr, size), ptr, size, nullptr)
ALLOC_HOOK(cudaMallocAsync, (void** ptr, size_t size, cudaStream_t stream), (ptr, size, stream),
           ptr, size, stream)
ALLOC_HOOK(cudaMallocAsync_ptsz, (void** ptr, size_t size, cudaStream_t stream),
           (ptr, size, stream), ptr, size, stream)
ALLOC_HOOK(cudaMallocHost, (void** ptr, size_t size), (ptr, size), ptr, size, nullptr)
ALLOC_HOOK(cudaHostAlloc, (void** ptr, size_t size, unsigned int flags), (ptr, size, flags), ptr,
           size, nullptr)
ALLOC_HOOK(cudaMallocManaged, (void** ptr, size_t size, unsigned int flags), (ptr, size, flags),
           ptr, size, nullptr)

FREE_HOOK(cudaFree, (void* ptr), (ptr), ptr, nullptr)
FREE_HOOK(cudaFreeHost, (void* ptr), (ptr), ptr, nullptr)
FREE_HOOK(cudaFreeAsync, (void* ptr, cudaStream_t stream), (ptr, stream), ptr, stream)
FREE_HOOK(cudaFreeAsync_ptsz, (void* ptr, cudaStream_t stream), (ptr, stream), ptr, stream)

}  // extern "C"
