// Kernel launches, in the four forms a program can use: <<<>>> (which CUDA 13 compiles to
// __cudaGetKernel + __cudaLaunchKernel), cudaLaunchKernel and cudaLaunchKernelExC, each with a
// _ptsz twin for --default-stream per-thread. Kernels do not run; they occupy the timeline.
// Like the real runtime, each hands the launch to the driver: observers see cuLaunchKernel (or
// cuLaunchKernelEx) nested inside the runtime call.
#include <csignal>
#include <cstdint>
#include <mutex>

#include "api_call.h"
#include "cuda_abi.h"
#include "launch.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

// Looked up before the call is reported, so that observers see the kernel's name at ENTER (what
// CUPTI reports as symbolName). Null for something the runtime never registered.
const KernelInfo* KernelOfHandle(cudaKernel_t kernel) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return runtime.modules.FindKernel(kernel);
}

const KernelInfo* KernelOfStub(const void* func) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return runtime.modules.FindKernelByHostFun(func);
}

const char* NameOf(const KernelInfo* kernel) {
  return kernel == nullptr ? nullptr : kernel->name.c_str();
}

CUfunction AsFunction(const KernelInfo* kernel) {
  return reinterpret_cast<CUfunction>(const_cast<KernelInfo*>(kernel));
}

// `cooperative`: cudaLaunchCooperativeKernel, which nests cuLaunchCooperativeKernel, whose
// parameters are cuLaunchKernel's without `extra` (generated_cuda_meta.h). The fake has no
// grid-wide barriers to model; the kernel occupies the timeline as any other.
cudaError_t Launch(const ApiCall& call, const KernelInfo* kernel, dim3 grid, dim3 block,
                   void** args, size_t shared_bytes, cudaStream_t stream, bool per_thread,
                   bool cooperative = false) {
  // An unknown kernel fails in the runtime, before any driver call.
  if (kernel == nullptr) {
    return IssueLaunch(call.correlation_id(), kernel, grid, block, shared_bytes, stream,
                       per_thread);
  }
  const cuLaunchKernel_params params{AsFunction(kernel),
                                     grid.x,
                                     grid.y,
                                     grid.z,
                                     block.x,
                                     block.y,
                                     block.z,
                                     static_cast<unsigned>(shared_bytes),
                                     reinterpret_cast<CUstream>(stream),
                                     args,
                                     nullptr};
  const cuLaunchCooperativeKernel_params cooperative_params{
      params.f,         params.gridDimX,    params.gridDimY,  params.gridDimZ,
      params.blockDimX, params.blockDimY,   params.blockDimZ, params.sharedMemBytes,
      params.hStream,   params.kernelParams};
  const char* name =
      cooperative ? (per_thread ? "cuLaunchCooperativeKernel_ptsz" : "cuLaunchCooperativeKernel")
                  : (per_thread ? "cuLaunchKernel_ptsz" : "cuLaunchKernel");
  const uint32_t cbid = cooperative
                            ? (per_thread ? CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz
                                          : CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel)
                            : (per_thread ? CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz
                                          : CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  ApiCall driver(ApiCall::NestedDriver{}, name, cbid,
                 cooperative ? static_cast<const void*>(&cooperative_params) : &params,
                 NameOf(kernel));
  const cudaError_t result = driver.Return(
      IssueLaunch(call.correlation_id(), kernel, grid, block, shared_bytes, stream, per_thread));
  if (const int signal = GetConfig().signal_in_launch) raise(signal);
  return result;
}

cudaError_t LaunchEx(const ApiCall& call, const cudaLaunchConfig_t* config,
                     const KernelInfo* kernel, void** args, bool per_thread) {
  if (config == nullptr) return cudaErrorInvalidValue;
  // Launch attributes (clusters, priorities, programmatic serialization) do not change the
  // simulated duration, so the driver is not told about them.
  const dim3 grid = config->gridDim;
  const dim3 block = config->blockDim;
  if (kernel == nullptr) {
    return IssueLaunch(call.correlation_id(), kernel, grid, block, config->dynamicSmemBytes,
                       config->stream, per_thread);
  }
  CUlaunchConfig driver_config{};
  driver_config.gridDimX = grid.x;
  driver_config.gridDimY = grid.y;
  driver_config.gridDimZ = grid.z;
  driver_config.blockDimX = block.x;
  driver_config.blockDimY = block.y;
  driver_config.blockDimZ = block.z;
  driver_config.sharedMemBytes = static_cast<unsigned>(config->dynamicSmemBytes);
  driver_config.hStream = reinterpret_cast<CUstream>(config->stream);
  const cuLaunchKernelEx_params params{&driver_config, AsFunction(kernel), args, nullptr};
  ApiCall driver(ApiCall::NestedDriver{}, per_thread ? "cuLaunchKernelEx_ptsz" : "cuLaunchKernelEx",
                 per_thread ? CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz
                            : CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                 &params, NameOf(kernel));
  return driver.Return(IssueLaunch(call.correlation_id(), kernel, grid, block,
                                   config->dynamicSmemBytes, config->stream, per_thread));
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;

extern "C" cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
                                                    dim3 blockDim, void** args, size_t sharedMem,
                                                    cudaStream_t stream) {
  const gprof_fake::KernelInfo* info = gprof_fake::KernelOfHandle(kernel);
  const __cudaLaunchKernel_v13000_params params{kernel, gridDim, blockDim, args, sharedMem, stream};
  ApiCall call("__cudaLaunchKernel", CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, &params,
               gprof_fake::NameOf(info));
  return call.Return(gprof_fake::Launch(call, info, gridDim, blockDim, args, sharedMem, stream,
                                        /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
                                                         dim3 blockDim, void** args,
                                                         size_t sharedMem, cudaStream_t stream) {
  const gprof_fake::KernelInfo* info = gprof_fake::KernelOfHandle(kernel);
  const __cudaLaunchKernel_ptsz_v13000_params params{kernel, gridDim,   blockDim,
                                                     args,   sharedMem, stream};
  ApiCall call("__cudaLaunchKernel_ptsz", CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
               &params, gprof_fake::NameOf(info));
  return call.Return(gprof_fake::Launch(call, info, gridDim, blockDim, args, sharedMem, stream,
                                        /*per_thread=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim,
                                                  void** args, size_t sharedMem,
                                                  cudaStream_t stream) {
  const gprof_fake::KernelInfo* info = gprof_fake::KernelOfStub(func);
  const cudaLaunchKernel_v7000_params params{func, gridDim, blockDim, args, sharedMem, stream};
  ApiCall call("cudaLaunchKernel", CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &params,
               gprof_fake::NameOf(info));
  return call.Return(gprof_fake::Launch(call, info, gridDim, blockDim, args, sharedMem, stream,
                                        /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void* func, dim3 gridDim,
                                                       dim3 blockDim, void** args, size_t sharedMem,
                                                       cudaStream_t stream) {
  const gprof_fake::KernelInfo* info = gprof_fake::KernelOfStub(func);
  const cudaLaunchKernel_ptsz_v7000_params params{func, gridDim, blockDim, args, sharedMem, stream};
  ApiCall call("cudaLaunchKernel_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
               &params, gprof_fake::NameOf(info));
  return call.Return(gprof_fake::Launch(call, info, gridDim, blockDim, args, sharedMem, stream,
                                        /*per_thread=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t* config,
                                                     const void* func, void** args) {
  const gprof_fake::KernelInfo* info = gprof_fake::KernelOfStub(func);
  const cudaLaunchKernelExC_v11060_params params{config, func, args};
  ApiCall call("cudaLaunchKernelExC", CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, &params,
               gprof_fake::NameOf(info));
  return call.Return(gprof_fake::LaunchEx(call, config, info, args, /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config,
                                                          const void* func, void** args) {
  const gprof_fake::KernelInfo* info = gprof_fake::KernelOfStub(func);
  const cudaLaunchKernelExC_ptsz_v11060_params params{config, func, args};
  ApiCall call("cudaLaunchKernelExC_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
               &params, gprof_fake::NameOf(info));
  return call.Return(gprof_fake::LaunchEx(call, config, info, args, /*per_thread=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchCooperativeKernel(const void* func, dim3 gridDim,
                                                             dim3 blockDim, void** args,
                                                             size_t sharedMem,
                                                             cudaStream_t stream) {
  const gprof_fake::KernelInfo* info = gprof_fake::KernelOfStub(func);
  const cudaLaunchCooperativeKernel_v9000_params params{func, gridDim,   blockDim,
                                                        args, sharedMem, stream};
  ApiCall call("cudaLaunchCooperativeKernel",
               CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000, &params,
               gprof_fake::NameOf(info));
  return call.Return(gprof_fake::Launch(call, info, gridDim, blockDim, args, sharedMem, stream,
                                        /*per_thread=*/false, /*cooperative=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 gridDim,
                                                                  dim3 blockDim, void** args,
                                                                  size_t sharedMem,
                                                                  cudaStream_t stream) {
  const gprof_fake::KernelInfo* info = gprof_fake::KernelOfStub(func);
  const cudaLaunchCooperativeKernel_ptsz_v9000_params params{func, gridDim,   blockDim,
                                                             args, sharedMem, stream};
  ApiCall call("cudaLaunchCooperativeKernel_ptsz",
               CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000, &params,
               gprof_fake::NameOf(info));
  return call.Return(gprof_fake::Launch(call, info, gridDim, blockDim, args, sharedMem, stream,
                                        /*per_thread=*/true, /*cooperative=*/true));
}
