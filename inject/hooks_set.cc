// Memsets, synchronous and asynchronous, 1D and 2D.
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/hook_name.h"
#include "inject/real_function.h"

using namespace gprof::inject;
using gprof::ApiId;

#define SET_HOOK(name, params, args, target_arg, bytes_arg, stream_arg) \
  cudaError_t CUDARTAPI GPROF_HOOK(name) params {                       \
    auto real = REAL(name);                                             \
    if (!real) return kMissing;                                         \
    ApiCall call(ApiId::name);                                          \
    cudaError_t result = real args;                                     \
    if (call.active()) {                                                \
      call.record().address = handle(target_arg);                       \
      call.record().bytes = bytes_arg;                                  \
      call.record().stream = handle(stream_arg);                        \
    }                                                                   \
    return call.finish(result);                                         \
  }

extern "C" {

SET_HOOK(cudaMemset, (void* ptr, int value, size_t count), (ptr, value, count), ptr, count, nullptr)
SET_HOOK(cudaMemset_ptds, (void* ptr, int value, size_t count), (ptr, value, count), ptr, count,
         nullptr)
SET_HOOK(cudaMemsetAsync, (void* ptr, int value, size_t count, cudaStream_t stream),
         (ptr, value, count, stream), ptr, count, stream)
SET_HOOK(cudaMemsetAsync_ptsz, (void* ptr, int value, size_t count, cudaStream_t stream),
         (ptr, value, count, stream), ptr, count, stream)
SET_HOOK(cudaMemset2D, (void* ptr, size_t pitch, int value, size_t width, size_t height),
         (ptr, pitch, value, width, height), ptr, width* height, nullptr)
SET_HOOK(cudaMemset2D_ptds, (void* ptr, size_t pitch, int value, size_t width, size_t height),
         (ptr, pitch, value, width, height), ptr, width* height, nullptr)
SET_HOOK(cudaMemset2DAsync,
         (void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream),
         (ptr, pitch, value, width, height, stream), ptr, width* height, stream)
SET_HOOK(cudaMemset2DAsync_ptsz,
         (void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream),
         (ptr, pitch, value, width, height, stream), ptr, width* height, stream)

}  // extern "C"
