// The cudaMemcpy family. Each entry point only translates its arguments; transfer.cc does the
// work. _ptds/_ptsz twins use the per-thread default stream for stream 0.
#include <mutex>

#include "api_call.h"
#include "cuda_abi.h"
#include "runtime.h"
#include "transfer.h"

namespace gprof_fake {
namespace {

CopyArgs Linear(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  CopyArgs args;
  args.dst = dst;
  args.dst_pitch = count;
  args.src = src;
  args.src_pitch = count;
  args.width = count;
  args.kind = kind;
  return args;
}

CopyArgs Pitched(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                 size_t height, cudaMemcpyKind kind) {
  CopyArgs args;
  args.dst = dst;
  args.dst_pitch = dpitch;
  args.src = src;
  args.src_pitch = spitch;
  args.width = width;
  args.height = height;
  args.kind = kind;
  return args;
}

CopyArgs Peer(void* dst, int dst_device, const void* src, int src_device, size_t count) {
  CopyArgs args = Linear(dst, src, count, cudaMemcpyDeviceToDevice);
  args.peer = true;
  args.dst_device = dst_device;
  args.src_device = src_device;
  return args;
}

// The fake device storage of bytes [offset, offset + count) of a __device__ variable.
cudaError_t SymbolStorage(const void* symbol, size_t offset, size_t count, void** storage) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  const SymbolInfo* info = runtime.modules.FindSymbol(symbol);
  if (info == nullptr) return cudaErrorInvalidSymbol;
  if (offset > info->size || count > info->size - offset) return cudaErrorInvalidValue;
  *storage = static_cast<unsigned char*>(info->storage) + offset;
  return cudaSuccess;
}

cudaError_t ToSymbol(uint32_t correlation_id, const void* symbol, const void* src, size_t count,
                     size_t offset, cudaMemcpyKind kind, cudaStream_t stream, bool per_thread,
                     HostBlocking blocking) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return cudaErrorInvalidMemcpyDirection;
  }
  void* dst = nullptr;
  if (const cudaError_t error = SymbolStorage(symbol, offset, count, &dst); error != cudaSuccess) {
    return error;
  }
  return Copy(correlation_id, Linear(dst, src, count, kind), stream, per_thread, blocking);
}

cudaError_t FromSymbol(uint32_t correlation_id, void* dst, const void* symbol, size_t count,
                       size_t offset, cudaMemcpyKind kind, cudaStream_t stream, bool per_thread,
                       HostBlocking blocking) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return cudaErrorInvalidMemcpyDirection;
  }
  void* src = nullptr;
  if (const cudaError_t error = SymbolStorage(symbol, offset, count, &src); error != cudaSuccess) {
    return error;
  }
  return Copy(correlation_id, Linear(dst, src, count, kind), stream, per_thread, blocking);
}

// cudaMemcpy3D on linear memory (cudaPitchedPtr on both sides): depth slices of height rows,
// each row `extent.width` bytes, rows `pitch` apart (cuda_runtime_api.h, cudaMemcpy3D). Arrays
// are not modelled: the fake refuses them rather than pretend.
cudaError_t Copy3D(uint32_t correlation_id, const cudaMemcpy3DParms* p, cudaStream_t stream,
                   bool per_thread, HostBlocking blocking) {
  if (p == nullptr) return cudaErrorInvalidValue;
  if (p->srcArray != nullptr || p->dstArray != nullptr) return cudaErrorInvalidValue;
  if (p->srcPos.x || p->srcPos.y || p->srcPos.z || p->dstPos.x || p->dstPos.y || p->dstPos.z)
    return cudaErrorInvalidValue;
  return Copy(correlation_id,
              Pitched(p->dstPtr.ptr, p->dstPtr.pitch, p->srcPtr.ptr, p->srcPtr.pitch,
                      p->extent.width, p->extent.height * p->extent.depth, p->kind),
              stream, per_thread, blocking);
}

// cudaMemcpyBatchAsync: `count` copies in one call, each its own transfer on the stream with the
// call's correlation id (CUPTI reports one memcpy activity per copy). Directions come from the
// pointers (cudaMemcpyDefault); the attributes' hints change nothing in the fake.
cudaError_t CopyBatch(uint32_t correlation_id, void* const* dsts, const void* const* srcs,
                      const size_t* sizes, size_t count, size_t num_attrs, cudaStream_t stream,
                      bool per_thread) {
  if (count == 0 || dsts == nullptr || srcs == nullptr || sizes == nullptr || num_attrs == 0)
    return cudaErrorInvalidValue;
  if (stream == nullptr) return cudaErrorInvalidValue;  // the legacy stream is not allowed
  for (size_t i = 0; i < count; ++i) {
    if (const cudaError_t error =
            Copy(correlation_id, Linear(dsts[i], srcs[i], sizes[i], cudaMemcpyDefault), stream,
                 per_thread, HostBlocking::kAsync);
        error != cudaSuccess)
      return error;
  }
  return cudaSuccess;
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;
using gprof_fake::Copy;
using gprof_fake::HostBlocking;

extern "C" cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t count,
                                            enum cudaMemcpyKind kind) {
  const cudaMemcpy_v3020_params params{dst, src, count, kind};
  ApiCall call("cudaMemcpy", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, &params);
  return call.Return(Copy(call.correlation_id(), gprof_fake::Linear(dst, src, count, kind), nullptr,
                          false, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy_ptds(void* dst, const void* src, size_t count,
                                                 enum cudaMemcpyKind kind) {
  const cudaMemcpy_ptds_v7000_params params{dst, src, count, kind};
  ApiCall call("cudaMemcpy_ptds", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000, &params);
  return call.Return(Copy(call.correlation_id(), gprof_fake::Linear(dst, src, count, kind), nullptr,
                          true, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream) {
  const cudaMemcpyAsync_v3020_params params{dst, src, count, kind, stream};
  ApiCall call("cudaMemcpyAsync", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, &params);
  return call.Return(Copy(call.correlation_id(), gprof_fake::Linear(dst, src, count, kind), stream,
                          false, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count,
                                                      enum cudaMemcpyKind kind,
                                                      cudaStream_t stream) {
  const cudaMemcpyAsync_ptsz_v7000_params params{dst, src, count, kind, stream};
  ApiCall call("cudaMemcpyAsync_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
               &params);
  return call.Return(Copy(call.correlation_id(), gprof_fake::Linear(dst, src, count, kind), stream,
                          true, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy2D(void* dst, size_t dpitch, const void* src,
                                              size_t spitch, size_t width, size_t height,
                                              enum cudaMemcpyKind kind) {
  const cudaMemcpy2D_v3020_params params{dst, dpitch, src, spitch, width, height, kind};
  ApiCall call("cudaMemcpy2D", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020, &params);
  return call.Return(Copy(call.correlation_id(),
                          gprof_fake::Pitched(dst, dpitch, src, spitch, width, height, kind),
                          nullptr, false, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src,
                                                   size_t spitch, size_t width, size_t height,
                                                   enum cudaMemcpyKind kind) {
  const cudaMemcpy2D_ptds_v7000_params params{dst, dpitch, src, spitch, width, height, kind};
  ApiCall call("cudaMemcpy2D_ptds", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000, &params);
  return call.Return(Copy(call.correlation_id(),
                          gprof_fake::Pitched(dst, dpitch, src, spitch, width, height, kind),
                          nullptr, true, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src,
                                                   size_t spitch, size_t width, size_t height,
                                                   enum cudaMemcpyKind kind, cudaStream_t stream) {
  const cudaMemcpy2DAsync_v3020_params params{dst,   dpitch, src,  spitch,
                                              width, height, kind, stream};
  ApiCall call("cudaMemcpy2DAsync", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020, &params);
  return call.Return(Copy(call.correlation_id(),
                          gprof_fake::Pitched(dst, dpitch, src, spitch, width, height, kind),
                          stream, false, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src,
                                                        size_t spitch, size_t width, size_t height,
                                                        enum cudaMemcpyKind kind,
                                                        cudaStream_t stream) {
  const cudaMemcpy2DAsync_ptsz_v7000_params params{dst,   dpitch, src,  spitch,
                                                   width, height, kind, stream};
  ApiCall call("cudaMemcpy2DAsync_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000,
               &params);
  return call.Return(Copy(call.correlation_id(),
                          gprof_fake::Pitched(dst, dpitch, src, spitch, width, height, kind),
                          stream, true, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyPeer(void* dst, int dstDevice, const void* src,
                                                int srcDevice, size_t count) {
  const cudaMemcpyPeer_v4000_params params{dst, dstDevice, src, srcDevice, count};
  ApiCall call("cudaMemcpyPeer", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000, &params);
  return call.Return(Copy(call.correlation_id(),
                          gprof_fake::Peer(dst, dstDevice, src, srcDevice, count), nullptr, false,
                          HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src,
                                                     int srcDevice, size_t count,
                                                     cudaStream_t stream) {
  const cudaMemcpyPeerAsync_v4000_params params{dst, dstDevice, src, srcDevice, count, stream};
  ApiCall call("cudaMemcpyPeerAsync", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000, &params);
  return call.Return(Copy(call.correlation_id(),
                          gprof_fake::Peer(dst, dstDevice, src, srcDevice, count), stream, false,
                          HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void* symbol, const void* src,
                                                    size_t count, size_t offset,
                                                    enum cudaMemcpyKind kind) {
  const cudaMemcpyToSymbol_v3020_params params{symbol, src, count, offset, kind};
  ApiCall call("cudaMemcpyToSymbol", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020, &params);
  return call.Return(gprof_fake::ToSymbol(call.correlation_id(), symbol, src, count, offset, kind,
                                          nullptr, false, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyToSymbol_ptds(const void* symbol, const void* src,
                                                         size_t count, size_t offset,
                                                         enum cudaMemcpyKind kind) {
  const cudaMemcpyToSymbol_ptds_v7000_params params{symbol, src, count, offset, kind};
  ApiCall call("cudaMemcpyToSymbol_ptds", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000,
               &params);
  return call.Return(gprof_fake::ToSymbol(call.correlation_id(), symbol, src, count, offset, kind,
                                          nullptr, true, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                                                      size_t offset, enum cudaMemcpyKind kind) {
  const cudaMemcpyFromSymbol_v3020_params params{dst, symbol, count, offset, kind};
  ApiCall call("cudaMemcpyFromSymbol", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020,
               &params);
  return call.Return(gprof_fake::FromSymbol(call.correlation_id(), dst, symbol, count, offset, kind,
                                            nullptr, false, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol,
                                                           size_t count, size_t offset,
                                                           enum cudaMemcpyKind kind) {
  const cudaMemcpyFromSymbol_ptds_v7000_params params{dst, symbol, count, offset, kind};
  ApiCall call("cudaMemcpyFromSymbol_ptds",
               CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000, &params);
  return call.Return(gprof_fake::FromSymbol(call.correlation_id(), dst, symbol, count, offset, kind,
                                            nullptr, true, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void* symbol, const void* src,
                                                         size_t count, size_t offset,
                                                         enum cudaMemcpyKind kind,
                                                         cudaStream_t stream) {
  const cudaMemcpyToSymbolAsync_v3020_params params{symbol, src, count, offset, kind, stream};
  ApiCall call("cudaMemcpyToSymbolAsync", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020,
               &params);
  return call.Return(gprof_fake::ToSymbol(call.correlation_id(), symbol, src, count, offset, kind,
                                          stream, false, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src,
                                                              size_t count, size_t offset,
                                                              enum cudaMemcpyKind kind,
                                                              cudaStream_t stream) {
  const cudaMemcpyToSymbolAsync_ptsz_v7000_params params{symbol, src, count, offset, kind, stream};
  ApiCall call("cudaMemcpyToSymbolAsync_ptsz",
               CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000, &params);
  return call.Return(gprof_fake::ToSymbol(call.correlation_id(), symbol, src, count, offset, kind,
                                          stream, true, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void* dst, const void* symbol,
                                                           size_t count, size_t offset,
                                                           enum cudaMemcpyKind kind,
                                                           cudaStream_t stream) {
  const cudaMemcpyFromSymbolAsync_v3020_params params{dst, symbol, count, offset, kind, stream};
  ApiCall call("cudaMemcpyFromSymbolAsync",
               CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020, &params);
  return call.Return(gprof_fake::FromSymbol(call.correlation_id(), dst, symbol, count, offset, kind,
                                            stream, false, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol,
                                                                size_t count, size_t offset,
                                                                enum cudaMemcpyKind kind,
                                                                cudaStream_t stream) {
  const cudaMemcpyFromSymbolAsync_ptsz_v7000_params params{dst,    symbol, count,
                                                           offset, kind,   stream};
  ApiCall call("cudaMemcpyFromSymbolAsync_ptsz",
               CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000, &params);
  return call.Return(gprof_fake::FromSymbol(call.correlation_id(), dst, symbol, count, offset, kind,
                                            stream, true, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  const cudaGetSymbolAddress_v3020_params params{devPtr, symbol};
  ApiCall call("cudaGetSymbolAddress", CUPTI_RUNTIME_TRACE_CBID_cudaGetSymbolAddress_v3020,
               &params);
  if (devPtr == nullptr) return call.Return(cudaErrorInvalidValue);
  auto& runtime = gprof_fake::GetRuntime();
  std::lock_guard lock(runtime.mu);
  const gprof_fake::SymbolInfo* info = runtime.modules.FindSymbol(symbol);
  if (info == nullptr) return call.Return(cudaErrorInvalidSymbol);
  *devPtr = info->storage;
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaGetSymbolSize(size_t* size, const void* symbol) {
  const cudaGetSymbolSize_v3020_params params{size, symbol};
  ApiCall call("cudaGetSymbolSize", CUPTI_RUNTIME_TRACE_CBID_cudaGetSymbolSize_v3020, &params);
  if (size == nullptr) return call.Return(cudaErrorInvalidValue);
  auto& runtime = gprof_fake::GetRuntime();
  std::lock_guard lock(runtime.mu);
  const gprof_fake::SymbolInfo* info = runtime.modules.FindSymbol(symbol);
  if (info == nullptr) return call.Return(cudaErrorInvalidSymbol);
  *size = info->size;
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy3D(const struct cudaMemcpy3DParms* p) {
  const cudaMemcpy3D_v3020_params params{p};
  ApiCall call("cudaMemcpy3D", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020, &params);
  return call.Return(
      gprof_fake::Copy3D(call.correlation_id(), p, nullptr, false, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms* p) {
  const cudaMemcpy3D_ptds_v7000_params params{p};
  ApiCall call("cudaMemcpy3D_ptds", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000, &params);
  return call.Return(
      gprof_fake::Copy3D(call.correlation_id(), p, nullptr, true, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p,
                                                   cudaStream_t stream) {
  const cudaMemcpy3DAsync_v3020_params params{p, stream};
  ApiCall call("cudaMemcpy3DAsync", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020, &params);
  return call.Return(
      gprof_fake::Copy3D(call.correlation_id(), p, stream, false, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms* p,
                                                        cudaStream_t stream) {
  const cudaMemcpy3DAsync_ptsz_v7000_params params{p, stream};
  ApiCall call("cudaMemcpy3DAsync_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000,
               &params);
  return call.Return(
      gprof_fake::Copy3D(call.correlation_id(), p, stream, true, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyBatchAsync(void* const* dsts, const void* const* srcs,
                                                      const size_t* sizes, size_t count,
                                                      struct cudaMemcpyAttributes* attrs,
                                                      size_t* attrsIdxs, size_t numAttrs,
                                                      cudaStream_t stream) {
  const cudaMemcpyBatchAsync_v13000_params params{dsts,  srcs,      sizes,    count,
                                                  attrs, attrsIdxs, numAttrs, stream};
  ApiCall call("cudaMemcpyBatchAsync", CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000,
               &params);
  return call.Return(gprof_fake::CopyBatch(call.correlation_id(), dsts, srcs, sizes, count,
                                           numAttrs, stream, false));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyBatchAsync_ptsz(
    void* const* dsts, const void* const* srcs, const size_t* sizes, size_t count,
    struct cudaMemcpyAttributes* attrs, size_t* attrsIdxs, size_t numAttrs, cudaStream_t stream) {
  const cudaMemcpyBatchAsync_ptsz_v13000_params params{dsts,  srcs,      sizes,    count,
                                                       attrs, attrsIdxs, numAttrs, stream};
  ApiCall call("cudaMemcpyBatchAsync_ptsz",
               CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v13000, &params);
  return call.Return(gprof_fake::CopyBatch(call.correlation_id(), dsts, srcs, sizes, count,
                                           numAttrs, stream, true));
}
