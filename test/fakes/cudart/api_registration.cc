// What nvcc-generated host code calls: module, kernel and variable registration at startup, and
// the <<<...>>> call configuration. Kernel names come from here, so that a launch can be
// reported by name.
#include <vector>

#include "api_call.h"
#include "cuda_abi.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

struct CallConfiguration {
  dim3 grid;
  dim3 block;
  size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
};

// <<<g, b, s, st>>> pushes, the launch stub pops; nested launches in argument expressions nest.
thread_local std::vector<CallConfiguration> t_call_configurations;

// Gives a variable zeroed fake device storage, which copies may then target by address.
const SymbolInfo& RegisterVariable(Runtime& runtime, const void* host_var, size_t size,
                                   GprofFakeMemoryKind kind) {
  SymbolInfo& symbol = runtime.modules.AddSymbol(host_var, size);
  runtime.memory.Adopt(symbol.storage, size, kind, 0);
  return symbol;
}

cudaError_t GetKernel(cudaKernel_t* kernel, const void* host_fun) {
  if (kernel == nullptr) return cudaErrorInvalidValue;
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  const KernelInfo* info = runtime.modules.FindKernelByHostFun(host_fun);
  if (info == nullptr) return cudaErrorInvalidDeviceFunction;
  // The handle is the registry's record itself; __cudaLaunchKernel validates it on the way back.
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<KernelInfo*>(info));
  return cudaSuccess;
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;
using gprof_fake::GetRuntime;

extern "C" void** CUDARTAPI __cudaRegisterFatBinary(void* fatCubin) {
  ApiCall call("__cudaRegisterFatBinary", CUPTI_RUNTIME_TRACE_CBID___cudaRegisterFatBinary_v13000);
  static_cast<void>(fatCubin);  // there is no device code to load
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return runtime.modules.AddModule();
}

extern "C" void CUDARTAPI __cudaRegisterFatBinaryEnd(void** fatCubinHandle) {
  ApiCall call("__cudaRegisterFatBinaryEnd",
               CUPTI_RUNTIME_TRACE_CBID___cudaRegisterFatBinaryEnd_v13000);
  static_cast<void>(fatCubinHandle);
}

extern "C" void CUDARTAPI __cudaUnregisterFatBinary(void** fatCubinHandle) {
  // Runs from atexit. Registrations are kept: other atexit handlers and detached threads may
  // still launch, and the kernel handles cached in launch stubs must stay valid.
  ApiCall call("__cudaUnregisterFatBinary",
               CUPTI_RUNTIME_TRACE_CBID___cudaUnregisterFatBinary_v13000);
  static_cast<void>(fatCubinHandle);
}

extern "C" void CUDARTAPI __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun,
                                                 char* deviceFun, const char* deviceName,
                                                 int thread_limit, uint3* tid, uint3* bid,
                                                 dim3* bDim, dim3* gDim, int* wSize) {
  ApiCall call("__cudaRegisterFunction", CUPTI_RUNTIME_TRACE_CBID___cudaRegisterFunction_v13000);
  static_cast<void>(fatCubinHandle);
  static_cast<void>(deviceFun);
  static_cast<void>(thread_limit);
  static_cast<void>(tid);
  static_cast<void>(bid);
  static_cast<void>(bDim);
  static_cast<void>(gDim);
  static_cast<void>(wSize);
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  runtime.modules.AddKernel(hostFun, deviceName);
}

extern "C" void CUDARTAPI __cudaRegisterVar(void** fatCubinHandle, char* hostVar,
                                            char* deviceAddress, const char* deviceName, int ext,
                                            size_t size, int constant, int global) {
  ApiCall call("__cudaRegisterVar", CUPTI_RUNTIME_TRACE_CBID___cudaRegisterVar_v13000);
  static_cast<void>(fatCubinHandle);
  static_cast<void>(deviceAddress);
  static_cast<void>(deviceName);
  static_cast<void>(ext);
  static_cast<void>(constant);
  static_cast<void>(global);
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  gprof_fake::RegisterVariable(runtime, hostVar, size, GPROF_FAKE_MEMORY_DEVICE);
}

extern "C" void CUDARTAPI __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress,
                                                   char* deviceAddress, const char* deviceName,
                                                   int ext, size_t size, int constant, int global) {
  ApiCall call("__cudaRegisterManagedVar",
               CUPTI_RUNTIME_TRACE_CBID___cudaRegisterManagedVar_v13000);
  static_cast<void>(fatCubinHandle);
  static_cast<void>(deviceAddress);
  static_cast<void>(deviceName);
  static_cast<void>(ext);
  static_cast<void>(constant);
  static_cast<void>(global);
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  // Host code reaches a __managed__ variable through this pointer, so it must point somewhere.
  *hostVarPtrAddress =
      gprof_fake::RegisterVariable(runtime, hostVarPtrAddress, size, GPROF_FAKE_MEMORY_MANAGED)
          .storage;
}

extern "C" char CUDARTAPI __cudaInitModule(void** fatCubinHandle) {
  ApiCall call("__cudaInitModule", CUPTI_RUNTIME_TRACE_CBID___cudaInitModule_v13000);
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return runtime.modules.HasModule(fatCubinHandle) ? 1 : 0;
}

extern "C" unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                                          size_t sharedMem,
                                                          struct CUstream_st* stream) {
  ApiCall call("__cudaPushCallConfiguration",
               CUPTI_RUNTIME_TRACE_CBID___cudaPushCallConfiguration_v13000);
  gprof_fake::t_call_configurations.push_back({gridDim, blockDim, sharedMem, stream});
  return 0;  // nonzero would make the <<<>>> expression skip the launch
}

extern "C" cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim,
                                                            size_t* sharedMem, void* stream) {
  ApiCall call("__cudaPopCallConfiguration",
               CUPTI_RUNTIME_TRACE_CBID___cudaPopCallConfiguration_v13000);
  auto& stack = gprof_fake::t_call_configurations;
  if (stack.empty()) return call.Return(cudaErrorMissingConfiguration);
  const gprof_fake::CallConfiguration configuration = stack.back();
  stack.pop_back();
  *gridDim = configuration.grid;
  *blockDim = configuration.block;
  *sharedMem = configuration.shared_bytes;
  *static_cast<cudaStream_t*>(stream) = configuration.stream;
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun) {
  ApiCall call("__cudaGetKernel", CUPTI_RUNTIME_TRACE_CBID___cudaGetKernel_v13000);
  return call.Return(gprof_fake::GetKernel(kernel, hostFun));
}

extern "C" cudaError_t CUDARTAPI cudaGetKernel(cudaKernel_t* kernelPtr, const void* entryFuncAddr) {
  const cudaGetKernel_v12000_params params{kernelPtr, entryFuncAddr};
  ApiCall call("cudaGetKernel", CUPTI_RUNTIME_TRACE_CBID_cudaGetKernel_v12000, &params);
  return call.Return(gprof_fake::GetKernel(kernelPtr, entryFuncAddr));
}
