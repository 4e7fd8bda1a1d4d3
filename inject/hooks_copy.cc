// Copies: synchronous and asynchronous, 1D/2D, peer and symbol.
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/real_function.h"

namespace gprof::inject {
namespace {

cudaError_t finish_copy(ApiCall& call, cudaError_t result, size_t bytes, cudaMemcpyKind kind,
                        cudaStream_t stream) {
  if (call.active()) {
    call.record().bytes = bytes;
    call.record().copy_kind = static_cast<uint8_t>(kind);
    call.record().stream = handle(stream);
  }
  return call.finish(result);
}

}  // namespace
}  // namespace gprof::inject

using namespace gprof::inject;
using gprof::ApiId;

#define COPY_HOOK(name, api, params, args, bytes_arg, kind_arg, stream_arg) \
  cudaError_t CUDARTAPI name params {                                       \
    auto real = REAL(name);                                                 \
    if (!real) return kMissing;                                             \
    ApiCall call(ApiId::api);                                               \
    cudaError_t result = real args;                                         \
    return finish_copy(call, result, bytes_arg, kind_arg, stream_arg);      \
  }

extern "C" {

COPY_HOOK(cudaMemcpy, cudaMemcpy, (void* dst, const void* src, size_t count, cudaMemcpyKind kind),
          (dst, src, count, kind), count, kind, nullptr)
COPY_HOOK(cudaMemcpy_ptds, cudaMemcpy_ptds,
          (void* dst, const void* src, size_t count, cudaMemcpyKind kind), (dst, src, count, kind),
          count, kind, nullptr)
COPY_HOOK(cudaMemcpyAsync, cudaMemcpyAsync,
          (void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream),
          (dst, src, count, kind, stream), count, kind, stream)
COPY_HOOK(cudaMemcpyAsync_ptsz, cudaMemcpyAsync_ptsz,
          (void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream),
          (dst, src, count, kind, stream), count, kind, stream)
COPY_HOOK(cudaMemcpy2D, cudaMemcpy2D,
          (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
           cudaMemcpyKind kind),
          (dst, dpitch, src, spitch, width, height, kind), width* height, kind, nullptr)
COPY_HOOK(cudaMemcpy2D_ptds, cudaMemcpy2D_ptds,
          (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
           cudaMemcpyKind kind),
          (dst, dpitch, src, spitch, width, height, kind), width* height, kind, nullptr)
COPY_HOOK(cudaMemcpy2DAsync, cudaMemcpy2DAsync,
          (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
           cudaMemcpyKind kind, cudaStream_t stream),
          (dst, dpitch, src, spitch, width, height, kind, stream), width* height, kind, stream)
COPY_HOOK(cudaMemcpy2DAsync_ptsz, cudaMemcpy2DAsync_ptsz,
          (void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
           cudaMemcpyKind kind, cudaStream_t stream),
          (dst, dpitch, src, spitch, width, height, kind, stream), width* height, kind, stream)
COPY_HOOK(cudaMemcpyPeer, cudaMemcpyPeer,
          (void* dst, int dst_device, const void* src, int src_device, size_t count),
          (dst, dst_device, src, src_device, count), count, cudaMemcpyDeviceToDevice, nullptr)
COPY_HOOK(cudaMemcpyPeerAsync, cudaMemcpyPeerAsync,
          (void* dst, int dst_device, const void* src, int src_device, size_t count,
           cudaStream_t stream),
          (dst, dst_device, src, src_device, count, stream), count, cudaMemcpyDeviceToDevice,
          stream)
COPY_HOOK(cudaMemcpyToSymbol, cudaMemcpyToSymbol,
          (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind),
          (symbol, src, count, offset, kind), count, kind, nullptr)
COPY_HOOK(cudaMemcpyFromSymbol, cudaMemcpyFromSymbol,
          (void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind),
          (dst, symbol, count, offset, kind), count, kind, nullptr)
COPY_HOOK(cudaMemcpyToSymbolAsync, cudaMemcpyToSymbolAsync,
          (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind,
           cudaStream_t stream),
          (symbol, src, count, offset, kind, stream), count, kind, stream)
COPY_HOOK(cudaMemcpyFromSymbolAsync, cudaMemcpyFromSymbolAsync,
          (void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind,
           cudaStream_t stream),
          (dst, symbol, count, offset, kind, stream), count, kind, stream)

}  // extern "C"
