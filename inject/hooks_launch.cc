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

// The `<<<...>>>` launches (__cudaLaunchKernel, _ptsz) take their dim3s as
// the registers they arrive in: a 12-byte struct is passed as two INTEGER
// eightbytes, x|y in one register and z in the low half of the next (System V
// AMD64 ABI §3.2.3; AAPCS64 §6.8.2 passes it in two X registers the same
// way), so (uint64_t xy, uint32_t z) is the same call. The compiler then keeps
// them in registers instead of building dim3 objects in memory.
static_assert(sizeof(dim3) == 12 && alignof(dim3) == 4);
#if !defined(__x86_64__) && !defined(__aarch64__)
#error "hooks_launch.cc: dim3 passing is only known for x86-64 and AArch64"
#endif
struct RawDim3 {
  uint64_t xy;
  uint32_t z;
  dim3 get() const { return dim3(static_cast<uint32_t>(xy), static_cast<uint32_t>(xy >> 32), z); }
  Dim3 dim() const { return {static_cast<uint32_t>(xy), static_cast<uint32_t>(xy >> 32), z}; }
};

// Not recording, no TSC, or pushing external correlation ids: out of line,
// so that the hot path below keeps a small frame. It takes the hook's own
// arguments (the real function comes from `GetReal`, a stateless lambda), so
// that the hot path reaches it with a jump.
template <ApiId api, typename GetReal>
[[gnu::noinline]] cudaError_t launch_by_handle_slow(cudaKernel_t kernel, uint64_t grid_xy,
                                                    uint32_t grid_z, uint64_t block_xy,
                                                    uint32_t block_z, void** args,
                                                    size_t shared_mem, cudaStream_t stream) {
  const auto real = GetReal{}();
  if (!real) return kMissing;
  ApiCall call(api);
  cudaError_t result = real(kernel, grid_xy, grid_z, block_xy, block_z, args, shared_mem, stream);
  return call.finish_launch(result, kernel, true, RawDim3{grid_xy, grid_z}.get(),
                            RawDim3{block_xy, block_z}.get(), shared_mem, stream);
}

// Inlined into each hook: the hot path of every `<<<...>>>` launch. Six
// callee-saved registers hold everything the record needs across the real
// call (grid.z and block.z share one), so nothing is spilled and reloaded.
template <ApiId api, typename GetReal>
[[gnu::always_inline]] inline cudaError_t launch_by_handle(cudaKernel_t kernel, uint64_t grid_xy,
                                                           uint32_t grid_z, uint64_t block_xy,
                                                           uint32_t block_z, void** args,
                                                           size_t shared_mem, cudaStream_t stream) {
  const auto real = GetReal{}();
  if (__builtin_expect(real == nullptr || !plain_recording_tsc(), 0))
    return launch_by_handle_slow<api, GetReal>(kernel, grid_xy, grid_z, block_xy, block_z, args,
                                               shared_mem, stream);
  ThreadState& t = this_thread();
  uint64_t correlation = 0;  // CUPTI's callback for this call fills it
  uint64_t* const outer = t.interposed;
  t.interposed = &correlation;
  const uint64_t start = tsc_ticks();
  const cudaError_t result =
      real(kernel, grid_xy, grid_z, block_xy, block_z, args, shared_mem, stream);
  const uint64_t end = tsc_ticks();
  t.interposed = outer;
  QLaunch* q = reserve<QLaunch>(t);
  if (__builtin_expect(q == nullptr, 0)) return result;
  fill_launch(q, static_cast<uint16_t>(api), true, static_cast<int32_t>(result), start, end,
              reinterpret_cast<uintptr_t>(stream), correlation, kernel, 0,
              static_cast<uint32_t>(shared_mem), RawDim3{grid_xy, grid_z}.dim(),
              RawDim3{block_xy, block_z}.dim());
  commit(t, sizeof(QLaunch));
  return result;
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

// crt/device_functions.h: (cudaKernel_t, dim3 grid, dim3 block, void**, size_t, cudaStream_t),
// with each dim3 as RawDim3's two registers.
cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, uint64_t grid_xy, uint32_t grid_z,
                                         uint64_t block_xy, uint32_t block_z, void** args,
                                         size_t shared_mem, cudaStream_t stream) {
  auto real = [] { return REAL(__cudaLaunchKernel); };
  return launch_by_handle<ApiId::cudaLaunchKernelInternal, decltype(real)>(
      kernel, grid_xy, grid_z, block_xy, block_z, args, shared_mem, stream);
}

cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, uint64_t grid_xy,
                                              uint32_t grid_z, uint64_t block_xy, uint32_t block_z,
                                              void** args, size_t shared_mem, cudaStream_t stream) {
  auto real = [] { return REAL(__cudaLaunchKernel_ptsz); };
  return launch_by_handle<ApiId::cudaLaunchKernelInternal_ptsz, decltype(real)>(
      kernel, grid_xy, grid_z, block_xy, block_z, args, shared_mem, stream);
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
