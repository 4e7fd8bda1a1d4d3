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

cudaError_t ToSymbol(const ApiCall& call, const void* symbol, const void* src, size_t count,
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
  return Copy(call, Linear(dst, src, count, kind), stream, per_thread, blocking);
}

cudaError_t FromSymbol(const ApiCall& call, void* dst, const void* symbol, size_t count,
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
  return Copy(call, Linear(dst, src, count, kind), stream, per_thread, blocking);
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;
using gprof_fake::Copy;
using gprof_fake::HostBlocking;

extern "C" cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t count,
                                            enum cudaMemcpyKind kind) {
  ApiCall call("cudaMemcpy");
  return call.Return(
      Copy(call, gprof_fake::Linear(dst, src, count, kind), nullptr, false, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy_ptds(void* dst, const void* src, size_t count,
                                                 enum cudaMemcpyKind kind) {
  ApiCall call("cudaMemcpy_ptds");
  return call.Return(
      Copy(call, gprof_fake::Linear(dst, src, count, kind), nullptr, true, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream) {
  ApiCall call("cudaMemcpyAsync");
  return call.Return(
      Copy(call, gprof_fake::Linear(dst, src, count, kind), stream, false, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count,
                                                      enum cudaMemcpyKind kind,
                                                      cudaStream_t stream) {
  ApiCall call("cudaMemcpyAsync_ptsz");
  return call.Return(
      Copy(call, gprof_fake::Linear(dst, src, count, kind), stream, true, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy2D(void* dst, size_t dpitch, const void* src,
                                              size_t spitch, size_t width, size_t height,
                                              enum cudaMemcpyKind kind) {
  ApiCall call("cudaMemcpy2D");
  return call.Return(Copy(call, gprof_fake::Pitched(dst, dpitch, src, spitch, width, height, kind),
                          nullptr, false, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src,
                                                   size_t spitch, size_t width, size_t height,
                                                   enum cudaMemcpyKind kind) {
  ApiCall call("cudaMemcpy2D_ptds");
  return call.Return(Copy(call, gprof_fake::Pitched(dst, dpitch, src, spitch, width, height, kind),
                          nullptr, true, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src,
                                                   size_t spitch, size_t width, size_t height,
                                                   enum cudaMemcpyKind kind, cudaStream_t stream) {
  ApiCall call("cudaMemcpy2DAsync");
  return call.Return(Copy(call, gprof_fake::Pitched(dst, dpitch, src, spitch, width, height, kind),
                          stream, false, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src,
                                                        size_t spitch, size_t width, size_t height,
                                                        enum cudaMemcpyKind kind,
                                                        cudaStream_t stream) {
  ApiCall call("cudaMemcpy2DAsync_ptsz");
  return call.Return(Copy(call, gprof_fake::Pitched(dst, dpitch, src, spitch, width, height, kind),
                          stream, true, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyPeer(void* dst, int dstDevice, const void* src,
                                                int srcDevice, size_t count) {
  ApiCall call("cudaMemcpyPeer");
  return call.Return(Copy(call, gprof_fake::Peer(dst, dstDevice, src, srcDevice, count), nullptr,
                          false, HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src,
                                                     int srcDevice, size_t count,
                                                     cudaStream_t stream) {
  ApiCall call("cudaMemcpyPeerAsync");
  return call.Return(Copy(call, gprof_fake::Peer(dst, dstDevice, src, srcDevice, count), stream,
                          false, HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void* symbol, const void* src,
                                                    size_t count, size_t offset,
                                                    enum cudaMemcpyKind kind) {
  ApiCall call("cudaMemcpyToSymbol");
  return call.Return(gprof_fake::ToSymbol(call, symbol, src, count, offset, kind, nullptr, false,
                                          HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyToSymbol_ptds(const void* symbol, const void* src,
                                                         size_t count, size_t offset,
                                                         enum cudaMemcpyKind kind) {
  ApiCall call("cudaMemcpyToSymbol_ptds");
  return call.Return(gprof_fake::ToSymbol(call, symbol, src, count, offset, kind, nullptr, true,
                                          HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                                                      size_t offset, enum cudaMemcpyKind kind) {
  ApiCall call("cudaMemcpyFromSymbol");
  return call.Return(gprof_fake::FromSymbol(call, dst, symbol, count, offset, kind, nullptr, false,
                                            HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol,
                                                           size_t count, size_t offset,
                                                           enum cudaMemcpyKind kind) {
  ApiCall call("cudaMemcpyFromSymbol_ptds");
  return call.Return(gprof_fake::FromSymbol(call, dst, symbol, count, offset, kind, nullptr, true,
                                            HostBlocking::kSync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void* symbol, const void* src,
                                                         size_t count, size_t offset,
                                                         enum cudaMemcpyKind kind,
                                                         cudaStream_t stream) {
  ApiCall call("cudaMemcpyToSymbolAsync");
  return call.Return(gprof_fake::ToSymbol(call, symbol, src, count, offset, kind, stream, false,
                                          HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src,
                                                              size_t count, size_t offset,
                                                              enum cudaMemcpyKind kind,
                                                              cudaStream_t stream) {
  ApiCall call("cudaMemcpyToSymbolAsync_ptsz");
  return call.Return(gprof_fake::ToSymbol(call, symbol, src, count, offset, kind, stream, true,
                                          HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void* dst, const void* symbol,
                                                           size_t count, size_t offset,
                                                           enum cudaMemcpyKind kind,
                                                           cudaStream_t stream) {
  ApiCall call("cudaMemcpyFromSymbolAsync");
  return call.Return(gprof_fake::FromSymbol(call, dst, symbol, count, offset, kind, stream, false,
                                            HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol,
                                                                size_t count, size_t offset,
                                                                enum cudaMemcpyKind kind,
                                                                cudaStream_t stream) {
  ApiCall call("cudaMemcpyFromSymbolAsync_ptsz");
  return call.Return(gprof_fake::FromSymbol(call, dst, symbol, count, offset, kind, stream, true,
                                            HostBlocking::kAsync));
}

extern "C" cudaError_t CUDARTAPI cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  ApiCall call("cudaGetSymbolAddress");
  if (devPtr == nullptr) return call.Return(cudaErrorInvalidValue);
  auto& runtime = gprof_fake::GetRuntime();
  std::lock_guard lock(runtime.mu);
  const gprof_fake::SymbolInfo* info = runtime.modules.FindSymbol(symbol);
  if (info == nullptr) return call.Return(cudaErrorInvalidSymbol);
  *devPtr = info->storage;
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaGetSymbolSize(size_t* size, const void* symbol) {
  ApiCall call("cudaGetSymbolSize");
  if (size == nullptr) return call.Return(cudaErrorInvalidValue);
  auto& runtime = gprof_fake::GetRuntime();
  std::lock_guard lock(runtime.mu);
  const gprof_fake::SymbolInfo* info = runtime.modules.FindSymbol(symbol);
  if (info == nullptr) return call.Return(cudaErrorInvalidSymbol);
  *size = info->size;
  return call.Return(cudaSuccess);
}
