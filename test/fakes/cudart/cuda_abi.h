// The ABI the fake implements: CUDA's own declarations, so every exported definition is checked
// against the real signature by the compiler.
#pragma once

// The real runtime is built with this macro: it makes cuda_runtime_api.h declare both the legacy
// names (cudaMemcpy) and the per-thread-default-stream names (cudaMemcpy_ptds, ..._ptsz) that
// programs compiled with --default-stream per-thread reference.
#define __CUDA_API_VERSION_INTERNAL 1

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
// What CUPTI calls each entry point and how it lays out its arguments: the fake reports calls
// to observers (the fake CUPTI) in those terms, including the driver calls the runtime makes.
// generated_cuda_meta.h (the driver's parameter structs) only compiles with
// __CUDA_API_VERSION_INTERNAL, which declares the _v1 types it refers to.
#include <cuda.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_meta.h>
#include <generated_cuda_runtime_api_meta.h>

#include "fake_cupti_params.h"

// Entry points that only nvcc-generated host code calls. crt/host_runtime.h and
// crt/device_functions.h declare them under __CUDACC__ only, so they are repeated here, byte for
// byte in their parameter types.
extern "C" {
void** CUDARTAPI __cudaRegisterFatBinary(void* fatCubin);
void CUDARTAPI __cudaRegisterFatBinaryEnd(void** fatCubinHandle);
void CUDARTAPI __cudaUnregisterFatBinary(void** fatCubinHandle);
void CUDARTAPI __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress,
                                 const char* deviceName, int ext, size_t size, int constant,
                                 int global);
void CUDARTAPI __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress,
                                        char* deviceAddress, const char* deviceName, int ext,
                                        size_t size, int constant, int global);
char CUDARTAPI __cudaInitModule(void** fatCubinHandle);
void CUDARTAPI __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                      const char* deviceName, int thread_limit, uint3* tid,
                                      uint3* bid, dim3* bDim, dim3* gDim, int* wSize);
unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                               struct CUstream_st* stream);
cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                                 void* stream);
cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun);
cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                         void** args, size_t sharedMem, cudaStream_t stream);
cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                              void** args, size_t sharedMem, cudaStream_t stream);
}
