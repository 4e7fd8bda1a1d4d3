// Kernel launches through the driver, as JITs (Triton) and libraries issue them. The kernel runs
// on the fake runtime's timeline under this call's correlation id, named after the function.
#include "driver_call.h"
#include "module_table.h"

namespace gprof_fake_driver {
namespace {

const char* NameOf(const Function* function) {
  return function == nullptr ? nullptr : function->name;
}

CUresult Launch(const DriverCall& call, const Function* function, const uint32_t grid[3],
                const uint32_t block[3], unsigned shared_bytes, CUstream stream,
                void** kernel_params, void** extra, bool per_thread) {
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return error;
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  // Arguments go either in kernelParams or in extra, never both.
  if (kernel_params != nullptr && extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
  return static_cast<CUresult>(gprof_fake_launch(call.correlation_id(), function->kernel, grid,
                                                 block, shared_bytes, stream, per_thread ? 1 : 0));
}

CUresult LaunchKernel(const char* name, uint32_t cbid, CUfunction f, unsigned grid_x,
                      unsigned grid_y, unsigned grid_z, unsigned block_x, unsigned block_y,
                      unsigned block_z, unsigned shared_bytes, CUstream stream,
                      void** kernel_params, void** extra, bool per_thread) {
  const Function* function = Modules().Find(f);
  // cuLaunchKernel_ptsz_params has the same layout.
  const cuLaunchKernel_params params{f,       grid_x,       grid_y, grid_z,        block_x, block_y,
                                     block_z, shared_bytes, stream, kernel_params, extra};
  DriverCall call(name, cbid, &params, NameOf(function));
  const uint32_t grid[3] = {grid_x, grid_y, grid_z};
  const uint32_t block[3] = {block_x, block_y, block_z};
  return call.Return(
      Launch(call, function, grid, block, shared_bytes, stream, kernel_params, extra, per_thread));
}

CUresult LaunchKernelEx(const char* name, uint32_t cbid, const CUlaunchConfig* config, CUfunction f,
                        void** kernel_params, void** extra, bool per_thread) {
  const Function* function = Modules().Find(f);
  const cuLaunchKernelEx_params params{config, f, kernel_params, extra};
  DriverCall call(name, cbid, &params, NameOf(function));
  if (config == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  // Launch attributes (clusters, priorities) do not change the simulated duration.
  const uint32_t grid[3] = {config->gridDimX, config->gridDimY, config->gridDimZ};
  const uint32_t block[3] = {config->blockDimX, config->blockDimY, config->blockDimZ};
  return call.Return(Launch(call, function, grid, block, config->sharedMemBytes, config->hStream,
                            kernel_params, extra, per_thread));
}

}  // namespace
}  // namespace gprof_fake_driver

extern "C" CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX,
                                           unsigned int gridDimY, unsigned int gridDimZ,
                                           unsigned int blockDimX, unsigned int blockDimY,
                                           unsigned int blockDimZ, unsigned int sharedMemBytes,
                                           CUstream hStream, void** kernelParams, void** extra) {
  return gprof_fake_driver::LaunchKernel(
      "cuLaunchKernel", CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, f, gridDimX, gridDimY, gridDimZ,
      blockDimX, blockDimY, blockDimZ, sharedMemBytes, hStream, kernelParams, extra, false);
}

extern "C" CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX,
                                                unsigned int gridDimY, unsigned int gridDimZ,
                                                unsigned int blockDimX, unsigned int blockDimY,
                                                unsigned int blockDimZ, unsigned int sharedMemBytes,
                                                CUstream hStream, void** kernelParams,
                                                void** extra) {
  return gprof_fake_driver::LaunchKernel("cuLaunchKernel_ptsz",
                                         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, f, gridDimX,
                                         gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                                         sharedMemBytes, hStream, kernelParams, extra, true);
}

extern "C" CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                             void** kernelParams, void** extra) {
  return gprof_fake_driver::LaunchKernelEx("cuLaunchKernelEx",
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, config, f,
                                           kernelParams, extra, false);
}

extern "C" CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f,
                                                  void** kernelParams, void** extra) {
  return gprof_fake_driver::LaunchKernelEx("cuLaunchKernelEx_ptsz",
                                           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, config, f,
                                           kernelParams, extra, true);
}
