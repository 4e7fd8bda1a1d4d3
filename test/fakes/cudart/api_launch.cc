// Kernel launches, in the four forms a program can use: <<<>>> (which CUDA 13 compiles to
// __cudaGetKernel + __cudaLaunchKernel), cudaLaunchKernel and cudaLaunchKernelExC, each with a
// _ptsz twin for --default-stream per-thread. Kernels do not run; they occupy the timeline.
#include <cstdint>
#include <mutex>

#include "api_call.h"
#include "cuda_abi.h"
#include "issue.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

constexpr uint64_t kMaxThreadsPerBlock = 1024;

cudaError_t ValidateConfiguration(dim3 grid, dim3 block) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return cudaErrorInvalidConfiguration;
  if (block.x == 0 || block.y == 0 || block.z == 0) return cudaErrorInvalidConfiguration;
  if (grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535) {
    return cudaErrorInvalidConfiguration;
  }
  if (block.x > 1024 || block.y > 1024 || block.z > 64) return cudaErrorInvalidConfiguration;
  const uint64_t threads = static_cast<uint64_t>(block.x) * block.y * block.z;
  return threads > kMaxThreadsPerBlock ? cudaErrorInvalidConfiguration : cudaSuccess;
}

// `find` maps the program's kernel argument (a cudaKernel_t or a host stub) to its record.
template <typename Find>
cudaError_t Launch(const ApiCall& call, Find find, dim3 grid, dim3 block, size_t shared_bytes,
                   cudaStream_t stream, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
  const KernelInfo* kernel = find(runtime.modules);
  if (kernel == nullptr) return cudaErrorInvalidDeviceFunction;
  if (const cudaError_t error = ValidateConfiguration(grid, block); error != cudaSuccess) {
    return error;
  }
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  OpRequest request;
  request.kind = GPROF_FAKE_OP_KERNEL;
  request.kernel = kernel;
  request.grid = grid;
  request.block = block;
  request.shared_bytes = shared_bytes;
  Issue(runtime, ref, request, call.correlation_id());
  return cudaSuccess;
}

cudaError_t LaunchByHandle(const ApiCall& call, cudaKernel_t kernel, dim3 grid, dim3 block,
                           size_t shared_bytes, cudaStream_t stream, bool per_thread) {
  return Launch(
      call, [&](const ModuleRegistry& modules) { return modules.FindKernel(kernel); }, grid, block,
      shared_bytes, stream, per_thread);
}

cudaError_t LaunchByStub(const ApiCall& call, const void* func, dim3 grid, dim3 block,
                         size_t shared_bytes, cudaStream_t stream, bool per_thread) {
  return Launch(
      call, [&](const ModuleRegistry& modules) { return modules.FindKernelByHostFun(func); }, grid,
      block, shared_bytes, stream, per_thread);
}

cudaError_t LaunchEx(const ApiCall& call, const cudaLaunchConfig_t* config, const void* func,
                     bool per_thread) {
  if (config == nullptr) return cudaErrorInvalidValue;
  // Launch attributes (clusters, priorities, programmatic serialization) do not change the
  // simulated duration.
  return LaunchByStub(call, func, config->gridDim, config->blockDim, config->dynamicSmemBytes,
                      config->stream, per_thread);
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;

extern "C" cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim,
                                                    dim3 blockDim, void** args, size_t sharedMem,
                                                    cudaStream_t stream) {
  ApiCall call("__cudaLaunchKernel");
  static_cast<void>(args);
  return call.Return(gprof_fake::LaunchByHandle(call, kernel, gridDim, blockDim, sharedMem, stream,
                                                /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
                                                         dim3 blockDim, void** args,
                                                         size_t sharedMem, cudaStream_t stream) {
  ApiCall call("__cudaLaunchKernel_ptsz");
  static_cast<void>(args);
  return call.Return(gprof_fake::LaunchByHandle(call, kernel, gridDim, blockDim, sharedMem, stream,
                                                /*per_thread=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim,
                                                  void** args, size_t sharedMem,
                                                  cudaStream_t stream) {
  ApiCall call("cudaLaunchKernel");
  static_cast<void>(args);
  return call.Return(gprof_fake::LaunchByStub(call, func, gridDim, blockDim, sharedMem, stream,
                                              /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void* func, dim3 gridDim,
                                                       dim3 blockDim, void** args, size_t sharedMem,
                                                       cudaStream_t stream) {
  ApiCall call("cudaLaunchKernel_ptsz");
  static_cast<void>(args);
  return call.Return(gprof_fake::LaunchByStub(call, func, gridDim, blockDim, sharedMem, stream,
                                              /*per_thread=*/true));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t* config,
                                                     const void* func, void** args) {
  ApiCall call("cudaLaunchKernelExC");
  static_cast<void>(args);
  return call.Return(gprof_fake::LaunchEx(call, config, func, /*per_thread=*/false));
}

extern "C" cudaError_t CUDARTAPI cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config,
                                                          const void* func, void** args) {
  ApiCall call("cudaLaunchKernelExC_ptsz");
  static_cast<void>(args);
  return call.Return(gprof_fake::LaunchEx(call, config, func, /*per_thread=*/true));
}
