// The last-error API. Every failing call records its error for the calling thread (api_call.cc);
// cudaGetLastError reads and clears it, cudaPeekAtLastError only reads it. The fake simulates no
// sticky (context-corrupting) errors.
#include "api_call.h"
#include "cuda_abi.h"
#include "error_text.h"

using gprof_fake::ApiCall;

extern "C" cudaError_t CUDARTAPI cudaGetLastError(void) {
  ApiCall call("cudaGetLastError", CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020);
  return call.ReturnUnrecorded(gprof_fake::TakeLastError());
}

extern "C" cudaError_t CUDARTAPI cudaPeekAtLastError(void) {
  ApiCall call("cudaPeekAtLastError", CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020);
  return call.ReturnUnrecorded(gprof_fake::PeekLastError());
}

extern "C" const char* CUDARTAPI cudaGetErrorName(cudaError_t error) {
  const cudaGetErrorName_v6050_params params{error};
  ApiCall call("cudaGetErrorName", CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorName_v6050, &params);
  const gprof_fake::ErrorText* text = gprof_fake::FindErrorText(error);
  return text != nullptr ? text->name : gprof_fake::kUnrecognizedError;
}

extern "C" const char* CUDARTAPI cudaGetErrorString(cudaError_t error) {
  const cudaGetErrorString_v3020_params params{error};
  ApiCall call("cudaGetErrorString", CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorString_v3020, &params);
  const gprof_fake::ErrorText* text = gprof_fake::FindErrorText(error);
  return text != nullptr ? text->description : gprof_fake::kUnrecognizedError;
}
