// The one table of intercepted CUDA APIs (issue 14: four hand-kept lists
// drifted). Every list that must agree with another is expanded from it:
// formats/api_ids.h (the stable ids and what a record carries),
// inject/cupti_handler.cc (the CUPTI callbacks gprof enables and how it reads
// their parameters), and libgprof.so's version script, generated at build
// time by inject/gen_version_script.cc (the exported hooks: every `runtime`
// row). A runtime row whose hook is missing fails the link
// (--no-undefined-version); test/e2e checks that the exports are exactly
// these rows and the entry points.
//
// X(enum name, id, exported symbol, display name, category, record fields,
//   domain, CUPTI callback id suffix, CUPTI parameter struct, parameter reader,
//   runtimes)
//
// id: part of the file format, never reused or renumbered; new APIs go at
// the end of their block (launches 1-19, copies 20-39 then 200-219, sets
// 40-59, syncs 60-79, allocations 80-99, frees 100-119, profiler 120-139,
// driver API 140-199).
// domain: `runtime`, an exported hook plus CUPTI's runtime callback (the
// callback records the call when the hook cannot see it: a static cudart);
// `driver`, CUPTI's driver callback only (JITs such as Triton launch there).
// runtimes: the libcudart majors whose callers the hook serves, each through
// its own version node (libcudart.so.12, libcudart.so.13: a process may hold
// both): `v12_v13`, or `v13` where cudart 12 lacks the symbol or declares it
// otherwise (cudaMemcpyBatchAsync: absent before 12.8, then with a failIdx
// argument more until CUDA 13; checked against the libcudart.so.12 and
// cuda_runtime_api.h of the 12.0-12.9 nvidia-cuda-runtime-cu12 wheels).
// The CUPTI columns are tokens here; only inject/ pastes them into names from
// CUPTI's headers (CUPTI_RUNTIME_TRACE_CBID_<suffix>, the <params> struct of
// generated_cuda_runtime_api_meta.h / generated_cuda_meta.h).
#pragma once

// clang-format off
#define GPROF_API_TABLE(X) \
  X(cudaLaunchKernel, 1, "cudaLaunchKernel", "cudaLaunchKernel", kLaunch, kFieldLaunch | kFieldStream, runtime, cudaLaunchKernel_v7000, cudaLaunchKernel_v7000_params, runtime_launch, v12_v13) \
  X(cudaLaunchKernel_ptsz, 2, "cudaLaunchKernel_ptsz", "cudaLaunchKernel", kLaunch, kFieldLaunch | kFieldStream, runtime, cudaLaunchKernel_ptsz_v7000, cudaLaunchKernel_ptsz_v7000_params, runtime_launch, v12_v13) \
  X(cudaLaunchKernelExC, 3, "cudaLaunchKernelExC", "cudaLaunchKernelExC", kLaunch, kFieldLaunch | kFieldStream, runtime, cudaLaunchKernelExC_v11060, cudaLaunchKernelExC_v11060_params, runtime_launch_ex, v12_v13) \
  X(cudaLaunchKernelExC_ptsz, 4, "cudaLaunchKernelExC_ptsz", "cudaLaunchKernelExC", kLaunch, kFieldLaunch | kFieldStream, runtime, cudaLaunchKernelExC_ptsz_v11060, cudaLaunchKernelExC_ptsz_v11060_params, runtime_launch_ex, v12_v13) \
  X(cudaLaunchKernelInternal, 5, "__cudaLaunchKernel", "cudaLaunchKernel", kLaunch, kFieldLaunch | kFieldStream, runtime, __cudaLaunchKernel_v13000, LaunchKernelInternalParams, runtime_launch, v12_v13) \
  X(cudaLaunchKernelInternal_ptsz, 6, "__cudaLaunchKernel_ptsz", "cudaLaunchKernel", kLaunch, kFieldLaunch | kFieldStream, runtime, __cudaLaunchKernel_ptsz_v13000, LaunchKernelInternalParams, runtime_launch, v12_v13) \
  X(cudaGraphLaunch, 7, "cudaGraphLaunch", "cudaGraphLaunch", kLaunch, kFieldStream | kFieldAddress, runtime, cudaGraphLaunch_v10000, cudaGraphLaunch_v10000_params, graph_launch, v12_v13) \
  X(cudaGraphLaunch_ptsz, 8, "cudaGraphLaunch_ptsz", "cudaGraphLaunch", kLaunch, kFieldStream | kFieldAddress, runtime, cudaGraphLaunch_ptsz_v10000, cudaGraphLaunch_ptsz_v10000_params, graph_launch, v12_v13) \
  X(cudaLaunchCooperativeKernel, 9, "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernel", kLaunch, kFieldLaunch | kFieldStream, runtime, cudaLaunchCooperativeKernel_v9000, cudaLaunchCooperativeKernel_v9000_params, runtime_launch, v12_v13) \
  X(cudaLaunchCooperativeKernel_ptsz, 10, "cudaLaunchCooperativeKernel_ptsz", "cudaLaunchCooperativeKernel", kLaunch, kFieldLaunch | kFieldStream, runtime, cudaLaunchCooperativeKernel_ptsz_v9000, cudaLaunchCooperativeKernel_ptsz_v9000_params, runtime_launch, v12_v13) \
  X(cudaMemcpy, 20, "cudaMemcpy", "cudaMemcpy", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy_v3020, cudaMemcpy_v3020_params, copy, v12_v13) \
  X(cudaMemcpyAsync, 21, "cudaMemcpyAsync", "cudaMemcpyAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyAsync_v3020, cudaMemcpyAsync_v3020_params, copy, v12_v13) \
  X(cudaMemcpy2D, 22, "cudaMemcpy2D", "cudaMemcpy2D", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy2D_v3020, cudaMemcpy2D_v3020_params, copy, v12_v13) \
  X(cudaMemcpy2DAsync, 23, "cudaMemcpy2DAsync", "cudaMemcpy2DAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy2DAsync_v3020, cudaMemcpy2DAsync_v3020_params, copy, v12_v13) \
  X(cudaMemcpyPeer, 24, "cudaMemcpyPeer", "cudaMemcpyPeer", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyPeer_v4000, cudaMemcpyPeer_v4000_params, copy, v12_v13) \
  X(cudaMemcpyPeerAsync, 25, "cudaMemcpyPeerAsync", "cudaMemcpyPeerAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyPeerAsync_v4000, cudaMemcpyPeerAsync_v4000_params, copy, v12_v13) \
  X(cudaMemcpyToSymbol, 26, "cudaMemcpyToSymbol", "cudaMemcpyToSymbol", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyToSymbol_v3020, cudaMemcpyToSymbol_v3020_params, copy, v12_v13) \
  X(cudaMemcpyFromSymbol, 27, "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbol", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyFromSymbol_v3020, cudaMemcpyFromSymbol_v3020_params, copy, v12_v13) \
  X(cudaMemcpyToSymbolAsync, 28, "cudaMemcpyToSymbolAsync", "cudaMemcpyToSymbolAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyToSymbolAsync_v3020, cudaMemcpyToSymbolAsync_v3020_params, copy, v12_v13) \
  X(cudaMemcpyFromSymbolAsync, 29, "cudaMemcpyFromSymbolAsync", "cudaMemcpyFromSymbolAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyFromSymbolAsync_v3020, cudaMemcpyFromSymbolAsync_v3020_params, copy, v12_v13) \
  X(cudaMemcpy_ptds, 30, "cudaMemcpy_ptds", "cudaMemcpy", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy_ptds_v7000, cudaMemcpy_ptds_v7000_params, copy, v12_v13) \
  X(cudaMemcpyAsync_ptsz, 31, "cudaMemcpyAsync_ptsz", "cudaMemcpyAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyAsync_ptsz_v7000, cudaMemcpyAsync_ptsz_v7000_params, copy, v12_v13) \
  X(cudaMemcpy2D_ptds, 32, "cudaMemcpy2D_ptds", "cudaMemcpy2D", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy2D_ptds_v7000, cudaMemcpy2D_ptds_v7000_params, copy, v12_v13) \
  X(cudaMemcpy2DAsync_ptsz, 33, "cudaMemcpy2DAsync_ptsz", "cudaMemcpy2DAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy2DAsync_ptsz_v7000, cudaMemcpy2DAsync_ptsz_v7000_params, copy, v12_v13) \
  X(cudaMemcpyToSymbol_ptds, 34, "cudaMemcpyToSymbol_ptds", "cudaMemcpyToSymbol", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyToSymbol_ptds_v7000, cudaMemcpyToSymbol_ptds_v7000_params, copy, v12_v13) \
  X(cudaMemcpyFromSymbol_ptds, 35, "cudaMemcpyFromSymbol_ptds", "cudaMemcpyFromSymbol", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyFromSymbol_ptds_v7000, cudaMemcpyFromSymbol_ptds_v7000_params, copy, v12_v13) \
  X(cudaMemcpyToSymbolAsync_ptsz, 36, "cudaMemcpyToSymbolAsync_ptsz", "cudaMemcpyToSymbolAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyToSymbolAsync_ptsz_v7000, cudaMemcpyToSymbolAsync_ptsz_v7000_params, copy, v12_v13) \
  X(cudaMemcpyFromSymbolAsync_ptsz, 37, "cudaMemcpyFromSymbolAsync_ptsz", "cudaMemcpyFromSymbolAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyFromSymbolAsync_ptsz_v7000, cudaMemcpyFromSymbolAsync_ptsz_v7000_params, copy, v12_v13) \
  X(cudaMemcpy3D, 38, "cudaMemcpy3D", "cudaMemcpy3D", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy3D_v3020, cudaMemcpy3D_v3020_params, copy_3d, v12_v13) \
  X(cudaMemcpy3DAsync, 39, "cudaMemcpy3DAsync", "cudaMemcpy3DAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy3DAsync_v3020, cudaMemcpy3DAsync_v3020_params, copy_3d, v12_v13) \
  X(cudaMemcpy3D_ptds, 200, "cudaMemcpy3D_ptds", "cudaMemcpy3D", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy3D_ptds_v7000, cudaMemcpy3D_ptds_v7000_params, copy_3d, v12_v13) \
  X(cudaMemcpy3DAsync_ptsz, 201, "cudaMemcpy3DAsync_ptsz", "cudaMemcpy3DAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpy3DAsync_ptsz_v7000, cudaMemcpy3DAsync_ptsz_v7000_params, copy_3d, v12_v13) \
  X(cudaMemcpyBatchAsync, 202, "cudaMemcpyBatchAsync", "cudaMemcpyBatchAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyBatchAsync_v13000, cudaMemcpyBatchAsync_v13000_params, copy_batch, v13) \
  X(cudaMemcpyBatchAsync_ptsz, 203, "cudaMemcpyBatchAsync_ptsz", "cudaMemcpyBatchAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, runtime, cudaMemcpyBatchAsync_ptsz_v13000, cudaMemcpyBatchAsync_ptsz_v13000_params, copy_batch, v13) \
  X(cudaMemset, 40, "cudaMemset", "cudaMemset", kSet, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMemset_v3020, cudaMemset_v3020_params, set, v12_v13) \
  X(cudaMemsetAsync, 41, "cudaMemsetAsync", "cudaMemsetAsync", kSet, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMemsetAsync_v3020, cudaMemsetAsync_v3020_params, set, v12_v13) \
  X(cudaMemset2D, 42, "cudaMemset2D", "cudaMemset2D", kSet, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMemset2D_v3020, cudaMemset2D_v3020_params, set, v12_v13) \
  X(cudaMemset2DAsync, 43, "cudaMemset2DAsync", "cudaMemset2DAsync", kSet, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMemset2DAsync_v3020, cudaMemset2DAsync_v3020_params, set, v12_v13) \
  X(cudaMemset_ptds, 44, "cudaMemset_ptds", "cudaMemset", kSet, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMemset_ptds_v7000, cudaMemset_ptds_v7000_params, set, v12_v13) \
  X(cudaMemsetAsync_ptsz, 45, "cudaMemsetAsync_ptsz", "cudaMemsetAsync", kSet, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMemsetAsync_ptsz_v7000, cudaMemsetAsync_ptsz_v7000_params, set, v12_v13) \
  X(cudaMemset2D_ptds, 46, "cudaMemset2D_ptds", "cudaMemset2D", kSet, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMemset2D_ptds_v7000, cudaMemset2D_ptds_v7000_params, set, v12_v13) \
  X(cudaMemset2DAsync_ptsz, 47, "cudaMemset2DAsync_ptsz", "cudaMemset2DAsync", kSet, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMemset2DAsync_ptsz_v7000, cudaMemset2DAsync_ptsz_v7000_params, set, v12_v13) \
  X(cudaDeviceSynchronize, 60, "cudaDeviceSynchronize", "cudaDeviceSynchronize", kSync, kFieldNone, runtime, cudaDeviceSynchronize_v3020, void, none, v12_v13) \
  X(cudaStreamSynchronize, 61, "cudaStreamSynchronize", "cudaStreamSynchronize", kSync, kFieldStream, runtime, cudaStreamSynchronize_v3020, cudaStreamSynchronize_v3020_params, sync_stream, v12_v13) \
  X(cudaEventSynchronize, 62, "cudaEventSynchronize", "cudaEventSynchronize", kSync, kFieldAddress, runtime, cudaEventSynchronize_v3020, cudaEventSynchronize_v3020_params, sync_event, v12_v13) \
  X(cudaStreamWaitEvent, 63, "cudaStreamWaitEvent", "cudaStreamWaitEvent", kSync, kFieldStream | kFieldAddress, runtime, cudaStreamWaitEvent_v3020, cudaStreamWaitEvent_v3020_params, sync_event, v12_v13) \
  X(cudaStreamSynchronize_ptsz, 64, "cudaStreamSynchronize_ptsz", "cudaStreamSynchronize", kSync, kFieldStream, runtime, cudaStreamSynchronize_ptsz_v7000, cudaStreamSynchronize_ptsz_v7000_params, sync_stream, v12_v13) \
  X(cudaStreamWaitEvent_ptsz, 65, "cudaStreamWaitEvent_ptsz", "cudaStreamWaitEvent", kSync, kFieldStream | kFieldAddress, runtime, cudaStreamWaitEvent_ptsz_v7000, cudaStreamWaitEvent_ptsz_v7000_params, sync_event, v12_v13) \
  X(cudaMalloc, 80, "cudaMalloc", "cudaMalloc", kAlloc, kFieldBytes | kFieldAddress, runtime, cudaMalloc_v3020, cudaMalloc_v3020_params, allocate, v12_v13) \
  X(cudaMallocAsync, 81, "cudaMallocAsync", "cudaMallocAsync", kAlloc, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMallocAsync_v11020, cudaMallocAsync_v11020_params, allocate, v12_v13) \
  X(cudaMallocHost, 82, "cudaMallocHost", "cudaMallocHost", kAlloc, kFieldBytes | kFieldAddress, runtime, cudaMallocHost_v3020, cudaMallocHost_v3020_params, allocate, v12_v13) \
  X(cudaHostAlloc, 83, "cudaHostAlloc", "cudaHostAlloc", kAlloc, kFieldBytes | kFieldAddress, runtime, cudaHostAlloc_v3020, cudaHostAlloc_v3020_params, allocate, v12_v13) \
  X(cudaMallocManaged, 84, "cudaMallocManaged", "cudaMallocManaged", kAlloc, kFieldBytes | kFieldAddress, runtime, cudaMallocManaged_v6000, cudaMallocManaged_v6000_params, allocate, v12_v13) \
  X(cudaMallocAsync_ptsz, 85, "cudaMallocAsync_ptsz", "cudaMallocAsync", kAlloc, kFieldBytes | kFieldAddress | kFieldStream, runtime, cudaMallocAsync_ptsz_v11020, cudaMallocAsync_ptsz_v11020_params, allocate, v12_v13) \
  X(cudaFree, 100, "cudaFree", "cudaFree", kFree, kFieldAddress, runtime, cudaFree_v3020, cudaFree_v3020_params, release, v12_v13) \
  X(cudaFreeAsync, 101, "cudaFreeAsync", "cudaFreeAsync", kFree, kFieldAddress | kFieldStream, runtime, cudaFreeAsync_v11020, cudaFreeAsync_v11020_params, release, v12_v13) \
  X(cudaFreeHost, 102, "cudaFreeHost", "cudaFreeHost", kFree, kFieldAddress, runtime, cudaFreeHost_v3020, cudaFreeHost_v3020_params, release, v12_v13) \
  X(cudaFreeAsync_ptsz, 103, "cudaFreeAsync_ptsz", "cudaFreeAsync", kFree, kFieldAddress | kFieldStream, runtime, cudaFreeAsync_ptsz_v11020, cudaFreeAsync_ptsz_v11020_params, release, v12_v13) \
  X(cudaProfilerStart, 120, "cudaProfilerStart", "cudaProfilerStart", kProfiler, kFieldNone, runtime, cudaProfilerStart_v4000, void, none, v12_v13) \
  X(cudaProfilerStop, 121, "cudaProfilerStop", "cudaProfilerStop", kProfiler, kFieldNone, runtime, cudaProfilerStop_v4000, void, none, v12_v13) \
  X(cuLaunchKernel, 140, "cuLaunchKernel", "cuLaunchKernel", kLaunch, kFieldLaunch | kFieldStream, driver, cuLaunchKernel, cuLaunchKernel_params, driver_launch, v12_v13) \
  X(cuLaunchKernel_ptsz, 141, "cuLaunchKernel_ptsz", "cuLaunchKernel", kLaunch, kFieldLaunch | kFieldStream, driver, cuLaunchKernel_ptsz, cuLaunchKernel_ptsz_params, driver_launch, v12_v13) \
  X(cuLaunchKernelEx, 142, "cuLaunchKernelEx", "cuLaunchKernelEx", kLaunch, kFieldLaunch | kFieldStream, driver, cuLaunchKernelEx, cuLaunchKernelEx_params, driver_launch_ex, v12_v13) \
  X(cuLaunchKernelEx_ptsz, 143, "cuLaunchKernelEx_ptsz", "cuLaunchKernelEx", kLaunch, kFieldLaunch | kFieldStream, driver, cuLaunchKernelEx_ptsz, cuLaunchKernelEx_ptsz_params, driver_launch_ex_ptsz, v12_v13) \
  X(cuLaunchCooperativeKernel, 144, "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel", kLaunch, kFieldLaunch | kFieldStream, driver, cuLaunchCooperativeKernel, cuLaunchCooperativeKernel_params, driver_launch, v12_v13) \
  X(cuLaunchCooperativeKernel_ptsz, 145, "cuLaunchCooperativeKernel_ptsz", "cuLaunchCooperativeKernel", kLaunch, kFieldLaunch | kFieldStream, driver, cuLaunchCooperativeKernel_ptsz, cuLaunchCooperativeKernel_ptsz_params, driver_launch, v12_v13) \
  X(cuMemcpyHtoD, 150, "cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_params, (driver_copy<1>), v12_v13) \
  X(cuMemcpyDtoH, 151, "cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_params, (driver_copy<2>), v12_v13) \
  X(cuMemcpyDtoD, 152, "cuMemcpyDtoD_v2", "cuMemcpyDtoD_v2", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_params, (driver_copy<3>), v12_v13) \
  X(cuMemcpyHtoDAsync, 153, "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync_v2", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_params, (driver_copy<1>), v12_v13) \
  X(cuMemcpyDtoHAsync, 154, "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync_v2", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_params, (driver_copy<2>), v12_v13) \
  X(cuMemcpyDtoDAsync, 155, "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync_v2", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_params, (driver_copy<3>), v12_v13) \
  X(cuMemsetD8, 160, "cuMemsetD8_v2", "cuMemsetD8_v2", kSet, kFieldBytes | kFieldAddress | kFieldStream, driver, cuMemsetD8_v2, cuMemsetD8_v2_params, (driver_set<1>), v12_v13) \
  X(cuMemsetD32, 161, "cuMemsetD32_v2", "cuMemsetD32_v2", kSet, kFieldBytes | kFieldAddress | kFieldStream, driver, cuMemsetD32_v2, cuMemsetD32_v2_params, (driver_set<4>), v12_v13) \
  X(cuMemsetD8Async, 162, "cuMemsetD8Async", "cuMemsetD8Async", kSet, kFieldBytes | kFieldAddress | kFieldStream, driver, cuMemsetD8Async, cuMemsetD8Async_params, (driver_set<1>), v12_v13) \
  X(cuMemsetD32Async, 163, "cuMemsetD32Async", "cuMemsetD32Async", kSet, kFieldBytes | kFieldAddress | kFieldStream, driver, cuMemsetD32Async, cuMemsetD32Async_params, (driver_set<4>), v12_v13) \
  X(cuCtxSynchronize, 170, "cuCtxSynchronize", "cuCtxSynchronize", kSync, kFieldNone, driver, cuCtxSynchronize, void, none, v12_v13) \
  X(cuStreamSynchronize, 171, "cuStreamSynchronize", "cuStreamSynchronize", kSync, kFieldStream, driver, cuStreamSynchronize, cuStreamSynchronize_params, sync_stream, v12_v13) \
  X(cuEventSynchronize, 172, "cuEventSynchronize", "cuEventSynchronize", kSync, kFieldAddress, driver, cuEventSynchronize, cuEventSynchronize_params, driver_sync_event, v12_v13) \
  X(cuMemAlloc, 180, "cuMemAlloc_v2", "cuMemAlloc_v2", kAlloc, kFieldBytes | kFieldAddress, driver, cuMemAlloc_v2, cuMemAlloc_v2_params, driver_allocate, v12_v13) \
  X(cuMemFree, 181, "cuMemFree_v2", "cuMemFree_v2", kFree, kFieldAddress, driver, cuMemFree_v2, cuMemFree_v2_params, driver_release, v12_v13) \
  X(cuGraphLaunch, 182, "cuGraphLaunch", "cuGraphLaunch", kLaunch, kFieldStream | kFieldAddress, driver, cuGraphLaunch, cuGraphLaunch_params, driver_graph_launch, v12_v13) \
  X(cuGraphLaunch_ptsz, 183, "cuGraphLaunch_ptsz", "cuGraphLaunch", kLaunch, kFieldStream | kFieldAddress, driver, cuGraphLaunch_ptsz, cuGraphLaunch_ptsz_params, driver_graph_launch, v12_v13) \
  X(cuMemcpy, 184, "cuMemcpy", "cuMemcpy", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpy, cuMemcpy_params, driver_copy_unified, v12_v13) \
  X(cuMemcpyAsync, 185, "cuMemcpyAsync", "cuMemcpyAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpyAsync, cuMemcpyAsync_params, driver_copy_unified, v12_v13) \
  X(cuMemcpy_ptds, 186, "cuMemcpy_ptds", "cuMemcpy", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpy_ptds, cuMemcpy_ptds_params, driver_copy_unified, v12_v13) \
  X(cuMemcpyAsync_ptsz, 187, "cuMemcpyAsync_ptsz", "cuMemcpyAsync", kCopy, kFieldBytes | kFieldCopyKind | kFieldStream, driver, cuMemcpyAsync_ptsz, cuMemcpyAsync_ptsz_params, driver_copy_unified, v12_v13)
// clang-format on
