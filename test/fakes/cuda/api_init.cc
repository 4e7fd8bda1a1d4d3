// Initialization, versions and error texts.
#include "driver_call.h"
#include "error_text.h"

using gprof_fake_driver::DriverCall;

extern "C" CUresult CUDAAPI cuInit(unsigned int Flags) {
  // Before ENTER, as the real driver loads CUDA_INJECTION64_PATH: the injected tool sees cuInit.
  const int initialized = gprof_fake_driver_init();
  const cuInit_params params{Flags};
  DriverCall call("cuInit", CUPTI_DRIVER_TRACE_CBID_cuInit, &params);
  if (Flags != 0) return call.Return(CUDA_ERROR_INVALID_VALUE);
  return call.Return(initialized);
}

extern "C" CUresult CUDAAPI cuDriverGetVersion(int* driverVersion) {
  const cuDriverGetVersion_params params{driverVersion};
  DriverCall call("cuDriverGetVersion", CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion, &params);
  if (driverVersion == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  *driverVersion = gprof_fake_driver_version();
  return call.Return(CUDA_SUCCESS);
}

extern "C" CUresult CUDAAPI cuGetErrorName(CUresult error, const char** pStr) {
  const cuGetErrorName_params params{error, pStr};
  DriverCall call("cuGetErrorName", CUPTI_DRIVER_TRACE_CBID_cuGetErrorName, &params);
  if (pStr == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  const gprof_fake_driver::DriverErrorText* text = gprof_fake_driver::FindDriverErrorText(error);
  *pStr = text != nullptr ? text->name : nullptr;
  return call.Return(text != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

extern "C" CUresult CUDAAPI cuGetErrorString(CUresult error, const char** pStr) {
  const cuGetErrorString_params params{error, pStr};
  DriverCall call("cuGetErrorString", CUPTI_DRIVER_TRACE_CBID_cuGetErrorString, &params);
  if (pStr == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  const gprof_fake_driver::DriverErrorText* text = gprof_fake_driver::FindDriverErrorText(error);
  *pStr = text != nullptr ? text->description : nullptr;
  return call.Return(text != nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}
