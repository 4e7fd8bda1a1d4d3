// Copies: synchronous and asynchronous, 1D/2D/3D, peer, symbol and batches.
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/hook_name.h"
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

size_t bytes_3d(const cudaMemcpy3DParms* p) {
  return p ? p->extent.width * p->extent.height * p->extent.depth : 0;
}

cudaMemcpyKind kind_3d(const cudaMemcpy3DParms* p) {
  return p ? p->kind : cudaMemcpyDefault;
}

[[maybe_unused]] size_t batch_bytes(const size_t* sizes, size_t count) {
  size_t bytes = 0;
  if (sizes)
    for (size_t i = 0; i < count; ++i) bytes += sizes[i];
  return bytes;
}

}  // namespace
}  // namespace gprof::inject

using namespace gprof::inject;
using gprof::ApiId;

#define COPY_HOOK(name, api, params, args, bytes_arg, kind_arg, stream_arg) \
  cudaError_t CUDARTAPI GPROF_HOOK(name) params {                           \
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
COPY_HOOK(cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol_ptds,
          (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind),
          (symbol, src, count, offset, kind), count, kind, nullptr)
COPY_HOOK(cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol_ptds,
          (void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind),
          (dst, symbol, count, offset, kind), count, kind, nullptr)
COPY_HOOK(cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync_ptsz,
          (const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind,
           cudaStream_t stream),
          (symbol, src, count, offset, kind, stream), count, kind, stream)
COPY_HOOK(cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync_ptsz,
          (void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind,
           cudaStream_t stream),
          (dst, symbol, count, offset, kind, stream), count, kind, stream)
// The extent's width is in bytes for linear memory (in elements when an array
// takes part, where this undercounts).
COPY_HOOK(cudaMemcpy3D, cudaMemcpy3D, (const cudaMemcpy3DParms* p), (p), bytes_3d(p), kind_3d(p),
          nullptr)
COPY_HOOK(cudaMemcpy3D_ptds, cudaMemcpy3D_ptds, (const cudaMemcpy3DParms* p), (p), bytes_3d(p),
          kind_3d(p), nullptr)
COPY_HOOK(cudaMemcpy3DAsync, cudaMemcpy3DAsync, (const cudaMemcpy3DParms* p, cudaStream_t stream),
          (p, stream), bytes_3d(p), kind_3d(p), stream)
COPY_HOOK(cudaMemcpy3DAsync_ptsz, cudaMemcpy3DAsync_ptsz,
          (const cudaMemcpy3DParms* p, cudaStream_t stream), (p, stream), bytes_3d(p), kind_3d(p),
          stream)
// CUDA 13's signature; cudart 12.8 took a failIdx argument more (formats/api_table.h).
#if GPROF_CUDART_MAJOR >= 13
// A batch is one call: all its copies' bytes; their directions are the
// driver's to find (cudaMemcpyDefault).
COPY_HOOK(cudaMemcpyBatchAsync, cudaMemcpyBatchAsync,
          (void* const* dsts, const void* const* srcs, const size_t* sizes, size_t count,
           cudaMemcpyAttributes* attrs, size_t* attrs_idxs, size_t num_attrs, cudaStream_t stream),
          (dsts, srcs, sizes, count, attrs, attrs_idxs, num_attrs, stream),
          batch_bytes(sizes, count), cudaMemcpyDefault, stream)
COPY_HOOK(cudaMemcpyBatchAsync_ptsz, cudaMemcpyBatchAsync_ptsz,
          (void* const* dsts, const void* const* srcs, const size_t* sizes, size_t count,
           cudaMemcpyAttributes* attrs, size_t* attrs_idxs, size_t num_attrs, cudaStream_t stream),
          (dsts, srcs, sizes, count, attrs, attrs_idxs, num_attrs, stream),
          batch_bytes(sizes, count), cudaMemcpyDefault, stream)
#endif

}  // extern "C"
