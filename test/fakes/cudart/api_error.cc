// The last-error API. Every failing call records its error for the calling thread (api_call.cc);
// cudaGetLastError reads and clears it, cudaPeekAtLastError only reads it. The fake simulates no
// sticky (context-corrupting) errors.
#include "api_call.h"
#include "cuda_abi.h"
#include "error_text.h"

using gprof_fake::ApiCall;

extern "C" cudaError_t CUDARTAPI cudaGetLastError(void) {
  ApiCall call("cudaGetLastError");
  return call.ReturnUnrecorded(gprof_fake::TakeLastError());
}

extern "C" cudaError_t CUDARTAPI cudaPeekAtLastError(void) {
  ApiCall call("cudaPeekAtLastError");
  return call.ReturnUnrecorded(gprof_fake::PeekLastError());
}

extern "C" const char* CUDARTAPI cudaGetErrorName(cudaError_t error) {
  ApiCall call("cudaGetErrorName");
  const gprof_fake::ErrorText* text = gprof_fake::FindErrorText(error);
  return text != nullptr ? text->name : gprof_fake::kUnrecognizedError;
}

extern "C" const char* CUDARTAPI cudaGetErrorString(cudaError_t error) {
  ApiCall call("cudaGetErrorString");
  const gprof_fake::ErrorText* text = gprof_fake::FindErrorText(error);
  return text != nullptr ? text->description : gprof_fake::kUnrecognizedError;
}
