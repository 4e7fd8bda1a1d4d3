#include "kernels.h"

#include <vector_types.h>

// Repeated from crt/host_runtime.h, which declares them for nvcc-generated code only.
extern "C" void** __cudaRegisterFatBinary(void* fatCubin);
extern "C" void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                       const char* deviceName, int thread_limit, uint3* tid,
                                       uint3* bid, dim3* bDim, dim3* gDim, int* wSize);

namespace fake_check {
namespace {

// Host stubs only need distinct addresses.
char g_stubs[64];
int g_next_stub = 0;

}  // namespace

const void* RegisterKernel(const char* name) {
  static void** module = __cudaRegisterFatBinary(nullptr);
  const char* stub = &g_stubs[g_next_stub++];
  __cudaRegisterFunction(module, stub, const_cast<char*>(name), name, -1, nullptr, nullptr, nullptr,
                         nullptr, nullptr);
  return stub;
}

}  // namespace fake_check
