// Kernel names: registration of host stubs by nvcc-generated constructors,
// and the CUDA 13 stub → cudaKernel_t mapping. Not recorded as calls.
#include "collector/process/recorder.h"
#include "inject/api_call.h"
#include "inject/cuda_api.h"
#include "inject/hook_name.h"
#include "inject/real_function.h"

using namespace gprof::inject;

extern "C" {

void CUDARTAPI GPROF_HOOK(__cudaRegisterFunction)(void** fatCubinHandle, const char* hostFun,
                                                  char* deviceFun, const char* deviceName,
                                                  int thread_limit, uint3* tid, uint3* bid,
                                                  dim3* bDim, dim3* gDim, int* wSize) {
  // deviceFun is the mangled device symbol; the tools demangle it.
  gprof::kernel_registry().register_function(hostFun, deviceFun ? deviceFun : deviceName);
  if (auto real = REAL(__cudaRegisterFunction))
    real(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim, wSize);
}

cudaError_t CUDARTAPI GPROF_HOOK(__cudaGetKernel)(cudaKernel_t* kernel, const void* hostFun) {
  auto real = REAL(__cudaGetKernel);
  if (!real) return kMissing;
  cudaError_t result = real(kernel, hostFun);
  if (result == cudaSuccess && kernel) gprof::kernel_registry().register_handle(*kernel, hostFun);
  return result;
}

}  // extern "C"
