// Kernel launches: the runtime API, the CUDA 13 compiler path
// (__cudaGetKernel + __cudaLaunchKernel) and graph launches.
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/real_function.h"

namespace gprof::inject {
namespace {

template <typename Real>
cudaError_t launch_by_function(Real real, ApiId api, const void* func, dim3 grid, dim3 block,
                               void** args, size_t shared_mem, cudaStream_t stream) {
  if (!real) return kMissing;
  ApiCall call(api);
  cudaError_t result = real(func, grid, block, args, shared_mem, stream);
  return call.finish_launch(result, func, false, grid, block, shared_mem, stream);
}

// Not recording, or pushing external correlation ids: out of line, so that
// the hot path below keeps a small frame.
template <typename Real>
[[gnu::noinline]] cudaError_t launch_by_handle_slow(Real real, ApiId api, cudaKernel_t kernel,
                                                    dim3 grid, dim3 block, void** args,
                                                    size_t shared_mem, cudaStream_t stream) {
  ApiCall call(api);
  cudaError_t result = real(kernel, grid, block, args, shared_mem, stream);
  return call.finish_launch(result, kernel, true, grid, block, shared_mem, stream);
}

// Inlined into each hook: the hot path of every `<<<...>>>` launch.
template <typename Real>
[[gnu::always_inline]] inline cudaError_t launch_by_handle(Real real, ApiId api,
                                                           cudaKernel_t kernel, dim3 grid,
                                                           dim3 block, void** args,
                                                           size_t shared_mem, cudaStream_t stream) {
  if (!real) return kMissing;
  if (__builtin_expect(plain_recording(), 1)) {
    // Spelled out rather than through a lambda: the compiler keeps the
    // arguments in registers instead of spilling and repacking them.
    ThreadState& t = this_thread();
    LaunchTiming timing(t);
    const cudaError_t result = real(kernel, grid, block, args, shared_mem, stream);
    timing.finish(t);
    write_launch(t, timing, api, result, kernel, true, grid, block, shared_mem, stream);
    return result;
  }
  return launch_by_handle_slow(real, api, kernel, grid, block, args, shared_mem, stream);
}

template <typename Real>
cudaError_t launch_ex(Real real, ApiId api, const cudaLaunchConfig_t* config, const void* func,
                      void** args) {
  if (!real) return kMissing;
  ApiCall call(api);
  cudaError_t result = real(config, func, args);
  if (!config) return call.finish_launch(result, func, false, dim3(0, 0, 0), dim3(0, 0, 0), 0, 0);
  return call.finish_launch(result, func, false, config->gridDim, config->blockDim,
                            config->dynamicSmemBytes, config->stream);
}

template <typename Real>
cudaError_t graph_launch(Real real, ApiId api, cudaGraphExec_t exec, cudaStream_t stream) {
  if (!real) return kMissing;
  ApiCall call(api);
  cudaError_t result = real(exec, stream);
  call.record().address = handle(exec);
  call.record().stream = handle(stream);
  return call.finish(result);
}

}  // namespace
}  // namespace gprof::inject

using namespace gprof::inject;
using gprof::ApiId;

extern "C" {

cudaError_t CUDARTAPI cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                                       size_t shared_mem, cudaStream_t stream) {
  return launch_by_function(REAL(cudaLaunchKernel), ApiId::cudaLaunchKernel, func, grid, block,
                            args, shared_mem, stream);
}

cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                            size_t shared_mem, cudaStream_t stream) {
  return launch_by_function(REAL(cudaLaunchKernel_ptsz), ApiId::cudaLaunchKernel_ptsz, func, grid,
                            block, args, shared_mem, stream);
}

cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                         size_t shared_mem, cudaStream_t stream) {
  return launch_by_handle(REAL(__cudaLaunchKernel), ApiId::cudaLaunchKernelInternal, kernel, grid,
                          block, args, shared_mem, stream);
}

cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                              void** args, size_t shared_mem, cudaStream_t stream) {
  return launch_by_handle(REAL(__cudaLaunchKernel_ptsz), ApiId::cudaLaunchKernelInternal_ptsz,
                          kernel, grid, block, args, shared_mem, stream);
}

cudaError_t CUDARTAPI cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func,
                                          void** args) {
  return launch_ex(REAL(cudaLaunchKernelExC), ApiId::cudaLaunchKernelExC, config, func, args);
}

cudaError_t CUDARTAPI cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                               void** args) {
  return launch_ex(REAL(cudaLaunchKernelExC_ptsz), ApiId::cudaLaunchKernelExC_ptsz, config, func,
                   args);
}

cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  return graph_launch(REAL(cudaGraphLaunch), ApiId::cudaGraphLaunch, exec, stream);
}

cudaError_t CUDARTAPI cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t stream) {
  return graph_launch(REAL(cudaGraphLaunch_ptsz), ApiId::cudaGraphLaunch_ptsz, exec, stream);
}

}  // extern "C"
