// Kernel launches: the runtime API, the CUDA 13 compiler path
// (__cudaGetKernel + __cudaLaunchKernel) and graph launches.
#include "collector/queues/static_tls.h"
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/hook_name.h"
#include "inject/real_function.h"

namespace gprof::inject {
namespace {

// The hot path of every kernel launch whose arguments arrive in registers.
// The record is claimed and filled before the real call, so that only the
// record and the thread state are kept across it (nothing spilled), and
// CUPTI's callback for the call writes its correlation id straight into the
// record. Anything the call records on this thread goes after the claimed
// record; the writer waits for one published before it is finished
// (QueueType::kPendingLaunch).
template <typename Invoke>
[[gnu::always_inline]] inline cudaError_t record_launch(ThreadState& t, QLaunch* q, ApiId api,
                                                        bool by_handle, const void* function,
                                                        Dim3 grid, Dim3 block, size_t shared_mem,
                                                        cudaStream_t stream, Invoke invoke) {
  t.cursor = reinterpret_cast<char*>(q + 1);
  q->type = QueueType::kPendingLaunch;
  q->by_handle = static_cast<uint8_t>(by_handle) | runtime_bits(GPROF_CUDART_MAJOR);
  q->api = static_cast<uint16_t>(api);
  q->stream = reinterpret_cast<uintptr_t>(stream);
  q->correlation = 0;
  q->function = function;
  q->kernel = 0;
  q->shared_mem = static_cast<uint32_t>(shared_mem);
  q->grid = grid;
  q->block = block;
  // The enclosing call's marker waits in `end` until the call returns: one
  // register less to keep across it.
  q->end = reinterpret_cast<uintptr_t>(t.interposed);
  t.interposed = &q->correlation;
  q->start = tsc_ticks();
  const cudaError_t result = invoke();
  t.interposed = reinterpret_cast<uint64_t*>(q->end);
  q->end = tsc_ticks();
  q->result = static_cast<int32_t>(result);
  __atomic_store_n(reinterpret_cast<uint8_t*>(&q->type), static_cast<uint8_t>(QueueType::kLaunch),
                   __ATOMIC_RELEASE);
  commit_claimed(t);
  return result;
}

// Not recording, no TSC, external correlation ids to push, or no room in the
// chunk: ApiCall's general path, out of line so that the hot path keeps a
// small frame.
template <typename Real>
[[gnu::noinline]] cudaError_t launch_by_function_slow(Real real, ApiId api, const void* func,
                                                      dim3 grid, dim3 block, void** args,
                                                      size_t shared_mem, cudaStream_t stream) {
  if (!real) return kMissing;
  ApiCall call(api);
  cudaError_t result = real(func, grid, block, args, shared_mem, stream);
  return call.finish_launch(result, func, false, grid, block, shared_mem, stream);
}

template <typename Real>
[[gnu::always_inline]] inline cudaError_t launch_by_function(Real real, ApiId api, const void* func,
                                                             dim3 grid, dim3 block, void** args,
                                                             size_t shared_mem,
                                                             cudaStream_t stream) {
  if (__builtin_expect(real == nullptr || !fast_launch(), 0))
    return launch_by_function_slow(real, api, func, grid, block, args, shared_mem, stream);
  ThreadState& t = fast_thread();
  char* const p = t.cursor;
  if (__builtin_expect(!fits(p, sizeof(QLaunch), t.end), 0))
    return launch_by_function_slow(real, api, func, grid, block, args, shared_mem, stream);
  return record_launch(t, reinterpret_cast<QLaunch*>(p), api, false, func,
                       Dim3{grid.x, grid.y, grid.z}, Dim3{block.x, block.y, block.z}, shared_mem,
                       stream, [&] { return real(func, grid, block, args, shared_mem, stream); });
}

// The `<<<...>>>` launches (__cudaLaunchKernel, _ptsz) take their dim3s as
// the registers they arrive in: a 12-byte struct is passed as two INTEGER
// eightbytes, x|y in one register and z in the low half of the next (System V
// AMD64 ABI §3.2.3; AAPCS64 §6.8.2 passes it in two X registers the same
// way), so (uint64_t xy, uint32_t z) is the same call, and the record takes
// x|y with one store.
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

// The general path of the `<<<...>>>` launches, out of line. It takes the
// hook's own arguments (the real function comes from `GetReal`, a stateless
// lambda), so that the hot path reaches it with a jump.
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

// Inlined into each hook: the hot path of every `<<<...>>>` launch.
template <ApiId api, typename GetReal>
[[gnu::always_inline]] inline cudaError_t launch_by_handle(cudaKernel_t kernel, uint64_t grid_xy,
                                                           uint32_t grid_z, uint64_t block_xy,
                                                           uint32_t block_z, void** args,
                                                           size_t shared_mem, cudaStream_t stream) {
  const auto real = GetReal{}();
  if (__builtin_expect(real == nullptr || !fast_launch(), 0))
    return launch_by_handle_slow<api, GetReal>(kernel, grid_xy, grid_z, block_xy, block_z, args,
                                               shared_mem, stream);
  ThreadState& t = fast_thread();
  char* const p = t.cursor;
  if (__builtin_expect(!fits(p, sizeof(QLaunch), t.end), 0))
    return launch_by_handle_slow<api, GetReal>(kernel, grid_xy, grid_z, block_xy, block_z, args,
                                               shared_mem, stream);
  return record_launch(
      t, reinterpret_cast<QLaunch*>(p), api, true, kernel, RawDim3{grid_xy, grid_z}.dim(),
      RawDim3{block_xy, block_z}.dim(), shared_mem, stream,
      [&] { return real(kernel, grid_xy, grid_z, block_xy, block_z, args, shared_mem, stream); });
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

cudaError_t CUDARTAPI GPROF_HOOK(cudaLaunchKernel)(const void* func, dim3 grid, dim3 block,
                                                   void** args, size_t shared_mem,
                                                   cudaStream_t stream) {
  return launch_by_function(REAL(cudaLaunchKernel), ApiId::cudaLaunchKernel, func, grid, block,
                            args, shared_mem, stream);
}

cudaError_t CUDARTAPI GPROF_HOOK(cudaLaunchKernel_ptsz)(const void* func, dim3 grid, dim3 block,
                                                        void** args, size_t shared_mem,
                                                        cudaStream_t stream) {
  return launch_by_function(REAL(cudaLaunchKernel_ptsz), ApiId::cudaLaunchKernel_ptsz, func, grid,
                            block, args, shared_mem, stream);
}

// crt/device_functions.h: (cudaKernel_t, dim3 grid, dim3 block, void**, size_t, cudaStream_t),
// with each dim3 as RawDim3's two registers.
cudaError_t CUDARTAPI GPROF_HOOK(__cudaLaunchKernel)(cudaKernel_t kernel, uint64_t grid_xy,
                                                     uint32_t grid_z, uint64_t block_xy,
                                                     uint32_t block_z, void** args,
                                                     size_t shared_mem, cudaStream_t stream) {
  auto real = [] { return REAL(__cudaLaunchKernel); };
  return launch_by_handle<ApiId::cudaLaunchKernelInternal, decltype(real)>(
      kernel, grid_xy, grid_z, block_xy, block_z, args, shared_mem, stream);
}

cudaError_t CUDARTAPI GPROF_HOOK(__cudaLaunchKernel_ptsz)(cudaKernel_t kernel, uint64_t grid_xy,
                                                          uint32_t grid_z, uint64_t block_xy,
                                                          uint32_t block_z, void** args,
                                                          size_t shared_mem, cudaStream_t stream) {
  auto real = [] { return REAL(__cudaLaunchKernel_ptsz); };
  return launch_by_handle<ApiId::cudaLaunchKernelInternal_ptsz, decltype(real)>(
      kernel, grid_xy, grid_z, block_xy, block_z, args, shared_mem, stream);
}

cudaError_t CUDARTAPI GPROF_HOOK(cudaLaunchCooperativeKernel)(const void* func, dim3 grid,
                                                              dim3 block, void** args,
                                                              size_t shared_mem,
                                                              cudaStream_t stream) {
  return launch_by_function(REAL(cudaLaunchCooperativeKernel), ApiId::cudaLaunchCooperativeKernel,
                            func, grid, block, args, shared_mem, stream);
}

cudaError_t CUDARTAPI GPROF_HOOK(cudaLaunchCooperativeKernel_ptsz)(const void* func, dim3 grid,
                                                                   dim3 block, void** args,
                                                                   size_t shared_mem,
                                                                   cudaStream_t stream) {
  return launch_by_function(REAL(cudaLaunchCooperativeKernel_ptsz),
                            ApiId::cudaLaunchCooperativeKernel_ptsz, func, grid, block, args,
                            shared_mem, stream);
}

cudaError_t CUDARTAPI GPROF_HOOK(cudaLaunchKernelExC)(const cudaLaunchConfig_t* config,
                                                      const void* func, void** args) {
  return launch_ex(REAL(cudaLaunchKernelExC), ApiId::cudaLaunchKernelExC, config, func, args);
}

cudaError_t CUDARTAPI GPROF_HOOK(cudaLaunchKernelExC_ptsz)(const cudaLaunchConfig_t* config,
                                                           const void* func, void** args) {
  return launch_ex(REAL(cudaLaunchKernelExC_ptsz), ApiId::cudaLaunchKernelExC_ptsz, config, func,
                   args);
}

cudaError_t CUDARTAPI GPROF_HOOK(cudaGraphLaunch)(cudaGraphExec_t exec, cudaStream_t stream) {
  return graph_launch(REAL(cudaGraphLaunch), ApiId::cudaGraphLaunch, exec, stream);
}

cudaError_t CUDARTAPI GPROF_HOOK(cudaGraphLaunch_ptsz)(cudaGraphExec_t exec, cudaStream_t stream) {
  return graph_launch(REAL(cudaGraphLaunch_ptsz), ApiId::cudaGraphLaunch_ptsz, exec, stream);
}

}  // extern "C"
