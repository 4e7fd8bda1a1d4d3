// The stable numbering of intercepted CUDA APIs, shared by the shim, the
// encoder and the reader. Numbers are part of the file format: never reuse or
// renumber one; append new APIs at the end of their block.
#pragma once

#include <cstdint>
#include <string_view>

namespace gprof {

// Which argument columns a record of an API carries in the file.
enum Field : uint32_t {
  kFieldNone = 0,
  kFieldLaunch = 1u << 0,    // kernel id, grid, block, dynamic shared memory
  kFieldStream = 1u << 1,    // stream handle (or sync target)
  kFieldBytes = 1u << 2,     // copy/set/allocation size
  kFieldAddress = 1u << 3,   // pointer allocated/freed/set, event or graph handle
  kFieldCopyKind = 1u << 4,  // cudaMemcpyKind
};

enum class ApiCategory : uint8_t { kOther, kLaunch, kCopy, kSet, kSync, kAlloc, kFree, kProfiler };

// X(enum name, id, exported symbol, display name, category, fields)
#define GPROF_API_LIST(X)                                                                          \
  X(cudaLaunchKernel, 1, "cudaLaunchKernel", "cudaLaunchKernel", kLaunch,                          \
    kFieldLaunch | kFieldStream)                                                                   \
  X(cudaLaunchKernel_ptsz, 2, "cudaLaunchKernel_ptsz", "cudaLaunchKernel", kLaunch,                \
    kFieldLaunch | kFieldStream)                                                                   \
  X(cudaLaunchKernelExC, 3, "cudaLaunchKernelExC", "cudaLaunchKernelExC", kLaunch,                 \
    kFieldLaunch | kFieldStream)                                                                   \
  X(cudaLaunchKernelExC_ptsz, 4, "cudaLaunchKernelExC_ptsz", "cudaLaunchKernelExC", kLaunch,       \
    kFieldLaunch | kFieldStream)                                                                   \
  X(cudaLaunchKernelInternal, 5, "__cudaLaunchKernel", "cudaLaunchKernel", kLaunch,                \
    kFieldLaunch | kFieldStream)                                                                   \
  X(cudaLaunchKernelInternal_ptsz, 6, "__cudaLaunchKernel_ptsz", "cudaLaunchKernel", kLaunch,      \
    kFieldLaunch | kFieldStream)                                                                   \
  X(cudaGraphLaunch, 7, "cudaGraphLaunch", "cudaGraphLaunch", kLaunch,                             \
    kFieldStream | kFieldAddress)                                                                  \
  X(cudaGraphLaunch_ptsz, 8, "cudaGraphLaunch_ptsz", "cudaGraphLaunch", kLaunch,                   \
    kFieldStream | kFieldAddress)                                                                  \
  X(cudaMemcpy, 20, "cudaMemcpy", "cudaMemcpy", kCopy,                                             \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpyAsync, 21, "cudaMemcpyAsync", "cudaMemcpyAsync", kCopy,                              \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpy2D, 22, "cudaMemcpy2D", "cudaMemcpy2D", kCopy,                                       \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpy2DAsync, 23, "cudaMemcpy2DAsync", "cudaMemcpy2DAsync", kCopy,                        \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpyPeer, 24, "cudaMemcpyPeer", "cudaMemcpyPeer", kCopy,                                 \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpyPeerAsync, 25, "cudaMemcpyPeerAsync", "cudaMemcpyPeerAsync", kCopy,                  \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpyToSymbol, 26, "cudaMemcpyToSymbol", "cudaMemcpyToSymbol", kCopy,                     \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpyFromSymbol, 27, "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbol", kCopy,               \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpyToSymbolAsync, 28, "cudaMemcpyToSymbolAsync", "cudaMemcpyToSymbolAsync", kCopy,      \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpyFromSymbolAsync, 29, "cudaMemcpyFromSymbolAsync", "cudaMemcpyFromSymbolAsync",       \
    kCopy, kFieldBytes | kFieldCopyKind | kFieldStream)                                            \
  X(cudaMemcpy_ptds, 30, "cudaMemcpy_ptds", "cudaMemcpy", kCopy,                                   \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpyAsync_ptsz, 31, "cudaMemcpyAsync_ptsz", "cudaMemcpyAsync", kCopy,                    \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpy2D_ptds, 32, "cudaMemcpy2D_ptds", "cudaMemcpy2D", kCopy,                             \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemcpy2DAsync_ptsz, 33, "cudaMemcpy2DAsync_ptsz", "cudaMemcpy2DAsync", kCopy,              \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cudaMemset, 40, "cudaMemset", "cudaMemset", kSet, kFieldBytes | kFieldAddress | kFieldStream)  \
  X(cudaMemsetAsync, 41, "cudaMemsetAsync", "cudaMemsetAsync", kSet,                               \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cudaMemset2D, 42, "cudaMemset2D", "cudaMemset2D", kSet,                                        \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cudaMemset2DAsync, 43, "cudaMemset2DAsync", "cudaMemset2DAsync", kSet,                         \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cudaMemset_ptds, 44, "cudaMemset_ptds", "cudaMemset", kSet,                                    \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cudaMemsetAsync_ptsz, 45, "cudaMemsetAsync_ptsz", "cudaMemsetAsync", kSet,                     \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cudaMemset2D_ptds, 46, "cudaMemset2D_ptds", "cudaMemset2D", kSet,                              \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cudaMemset2DAsync_ptsz, 47, "cudaMemset2DAsync_ptsz", "cudaMemset2DAsync", kSet,               \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cudaDeviceSynchronize, 60, "cudaDeviceSynchronize", "cudaDeviceSynchronize", kSync,            \
    kFieldNone)                                                                                    \
  X(cudaStreamSynchronize, 61, "cudaStreamSynchronize", "cudaStreamSynchronize", kSync,            \
    kFieldStream)                                                                                  \
  X(cudaEventSynchronize, 62, "cudaEventSynchronize", "cudaEventSynchronize", kSync,               \
    kFieldAddress)                                                                                 \
  X(cudaStreamWaitEvent, 63, "cudaStreamWaitEvent", "cudaStreamWaitEvent", kSync,                  \
    kFieldStream | kFieldAddress)                                                                  \
  X(cudaStreamSynchronize_ptsz, 64, "cudaStreamSynchronize_ptsz", "cudaStreamSynchronize", kSync,  \
    kFieldStream)                                                                                  \
  X(cudaStreamWaitEvent_ptsz, 65, "cudaStreamWaitEvent_ptsz", "cudaStreamWaitEvent", kSync,        \
    kFieldStream | kFieldAddress)                                                                  \
  X(cudaMalloc, 80, "cudaMalloc", "cudaMalloc", kAlloc, kFieldBytes | kFieldAddress)               \
  X(cudaMallocAsync, 81, "cudaMallocAsync", "cudaMallocAsync", kAlloc,                             \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cudaMallocHost, 82, "cudaMallocHost", "cudaMallocHost", kAlloc, kFieldBytes | kFieldAddress)   \
  X(cudaHostAlloc, 83, "cudaHostAlloc", "cudaHostAlloc", kAlloc, kFieldBytes | kFieldAddress)      \
  X(cudaMallocManaged, 84, "cudaMallocManaged", "cudaMallocManaged", kAlloc,                       \
    kFieldBytes | kFieldAddress)                                                                   \
  X(cudaMallocAsync_ptsz, 85, "cudaMallocAsync_ptsz", "cudaMallocAsync", kAlloc,                   \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cudaFree, 100, "cudaFree", "cudaFree", kFree, kFieldAddress)                                   \
  X(cudaFreeAsync, 101, "cudaFreeAsync", "cudaFreeAsync", kFree, kFieldAddress | kFieldStream)     \
  X(cudaFreeHost, 102, "cudaFreeHost", "cudaFreeHost", kFree, kFieldAddress)                       \
  X(cudaFreeAsync_ptsz, 103, "cudaFreeAsync_ptsz", "cudaFreeAsync", kFree,                         \
    kFieldAddress | kFieldStream)                                                                  \
  X(cudaProfilerStart, 120, "cudaProfilerStart", "cudaProfilerStart", kProfiler, kFieldNone)       \
  X(cudaProfilerStop, 121, "cudaProfilerStop", "cudaProfilerStop", kProfiler, kFieldNone)          \
  /* Driver API, seen through CUPTI callbacks only (JITs such as Triton launch this way). */       \
  X(cuLaunchKernel, 140, "cuLaunchKernel", "cuLaunchKernel", kLaunch, kFieldLaunch | kFieldStream) \
  X(cuLaunchKernel_ptsz, 141, "cuLaunchKernel_ptsz", "cuLaunchKernel", kLaunch,                    \
    kFieldLaunch | kFieldStream)                                                                   \
  X(cuLaunchKernelEx, 142, "cuLaunchKernelEx", "cuLaunchKernelEx", kLaunch,                        \
    kFieldLaunch | kFieldStream)                                                                   \
  X(cuLaunchKernelEx_ptsz, 143, "cuLaunchKernelEx_ptsz", "cuLaunchKernelEx", kLaunch,              \
    kFieldLaunch | kFieldStream)                                                                   \
  X(cuLaunchCooperativeKernel, 144, "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel",      \
    kLaunch, kFieldLaunch | kFieldStream)                                                          \
  X(cuLaunchCooperativeKernel_ptsz, 145, "cuLaunchCooperativeKernel_ptsz",                         \
    "cuLaunchCooperativeKernel", kLaunch, kFieldLaunch | kFieldStream)                             \
  X(cuMemcpyHtoD, 150, "cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2", kCopy,                                \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cuMemcpyDtoH, 151, "cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2", kCopy,                                \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cuMemcpyDtoD, 152, "cuMemcpyDtoD_v2", "cuMemcpyDtoD_v2", kCopy,                                \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cuMemcpyHtoDAsync, 153, "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync_v2", kCopy,                 \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cuMemcpyDtoHAsync, 154, "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync_v2", kCopy,                 \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cuMemcpyDtoDAsync, 155, "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync_v2", kCopy,                 \
    kFieldBytes | kFieldCopyKind | kFieldStream)                                                   \
  X(cuMemsetD8, 160, "cuMemsetD8_v2", "cuMemsetD8_v2", kSet,                                       \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cuMemsetD32, 161, "cuMemsetD32_v2", "cuMemsetD32_v2", kSet,                                    \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cuMemsetD8Async, 162, "cuMemsetD8Async", "cuMemsetD8Async", kSet,                              \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cuMemsetD32Async, 163, "cuMemsetD32Async", "cuMemsetD32Async", kSet,                           \
    kFieldBytes | kFieldAddress | kFieldStream)                                                    \
  X(cuCtxSynchronize, 170, "cuCtxSynchronize", "cuCtxSynchronize", kSync, kFieldNone)              \
  X(cuStreamSynchronize, 171, "cuStreamSynchronize", "cuStreamSynchronize", kSync, kFieldStream)   \
  X(cuEventSynchronize, 172, "cuEventSynchronize", "cuEventSynchronize", kSync, kFieldAddress)     \
  X(cuMemAlloc, 180, "cuMemAlloc_v2", "cuMemAlloc_v2", kAlloc, kFieldBytes | kFieldAddress)        \
  X(cuMemFree, 181, "cuMemFree_v2", "cuMemFree_v2", kFree, kFieldAddress)

enum class ApiId : uint16_t {
  kUnknown = 0,
#define GPROF_X(name, id, sym, display, cat, fields) name = id,
  GPROF_API_LIST(GPROF_X)
#undef GPROF_X
};

struct ApiInfo {
  ApiId id;
  std::string_view symbol;   // the exported symbol that was intercepted
  std::string_view display;  // the row name users know (CUPTI's name for the call)
  ApiCategory category;
  uint32_t fields;
};

// nullptr for ids this build does not know (a newer writer).
const ApiInfo* api_info(ApiId id);
inline uint32_t api_fields(ApiId id) {
  const ApiInfo* info = api_info(id);
  return info ? info->fields : kFieldNone;
}

}  // namespace gprof
