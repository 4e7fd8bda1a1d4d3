// The CUDA declarations the hooks define. Everything declared here is made
// default-visibility so the version script (generated from
// formats/api_table.h by gen_version_script.cc) can export the
// hooks; the rest of the shim is compiled -fvisibility=hidden.
#pragma once

#pragma GCC visibility push(default)
#include <cstdint>

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

extern "C" {
// Not in the public headers in this form: nvcc-generated host code calls them.
void CUDARTAPI __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                      const char* deviceName, int thread_limit, uint3* tid,
                                      uint3* bid, dim3* bDim, dim3* gDim, int* wSize);
cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun);
// crt/device_functions.h declares these with (dim3 gridDim, dim3 blockDim);
// each dim3 is written here as the two registers it is passed in (x|y, z:
// System V AMD64 ABI §3.2.3, AAPCS64 §6.8.2), the same call at the machine
// level, so that the hot path keeps them in registers (hooks_launch.cc).
cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, uint64_t grid_xy, uint32_t grid_z,
                                         uint64_t block_xy, uint32_t block_z, void** args,
                                         size_t sharedMem, cudaStream_t stream);
cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, uint64_t grid_xy,
                                              uint32_t grid_z, uint64_t block_xy, uint32_t block_z,
                                              void** args, size_t sharedMem, cudaStream_t stream);
// Per-thread default stream variants (exported by libcudart.so.13).
cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim,
                                            void** args, size_t sharedMem, cudaStream_t stream);
cudaError_t CUDARTAPI cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                               void** args);
cudaError_t CUDARTAPI cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpy_ptds(void* dst, const void* src, size_t count,
                                      enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count,
                                           enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch,
                                        size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src,
                                             size_t spitch, size_t width, size_t height,
                                             enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemset_ptds(void* devPtr, int value, size_t count);
cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count,
                                           cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemset2D_ptds(void* devPtr, size_t pitch, int value, size_t width,
                                        size_t height);
cudaError_t CUDARTAPI cudaMemset2DAsync_ptsz(void* devPtr, size_t pitch, int value, size_t width,
                                             size_t height, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count,
                                                size_t offset, enum cudaMemcpyKind kind);
cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src,
                                                   size_t count, size_t offset,
                                                   enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count,
                                                     size_t offset, enum cudaMemcpyKind kind,
                                                     cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms* p);
cudaError_t CUDARTAPI cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms* p,
                                             cudaStream_t stream);
cudaError_t CUDARTAPI cudaMemcpyBatchAsync_ptsz(void* const* dsts, const void* const* srcs,
                                                const size_t* sizes, size_t count,
                                                struct cudaMemcpyAttributes* attrs,
                                                size_t* attrsIdxs, size_t numAttrs,
                                                cudaStream_t stream);
cudaError_t CUDARTAPI cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 gridDim,
                                                       dim3 blockDim, void** args, size_t sharedMem,
                                                       cudaStream_t stream);
cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t CUDARTAPI cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                               unsigned int flags);
cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void** devPtr, size_t size, cudaStream_t hStream);
cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void* devPtr, cudaStream_t hStream);
}
#pragma GCC visibility pop
