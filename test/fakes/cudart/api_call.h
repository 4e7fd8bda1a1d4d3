// The bookkeeping every exported runtime entry point does: a correlation id per call, the
// per-thread last error, the API observer, and delivery of completed GPU ops.
#pragma once

#include <cstdint>

#include "cuda_abi.h"

namespace gprof_fake {

// One exported call, from entry to return. Usage:
//   ApiCall call("cudaMalloc");
//   return call.Return(MallocImpl(...));
class ApiCall {
 public:
  explicit ApiCall(const char* name);
  ~ApiCall();
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  uint32_t correlation_id() const { return correlation_id_; }

  // Remembers a failure as the calling thread's last error, as the real runtime does.
  cudaError_t Return(cudaError_t result);
  // For cudaGetLastError and cudaPeekAtLastError, which report errors without recording them.
  cudaError_t ReturnUnrecorded(cudaError_t result);
  // For queries: cudaErrorNotReady is an answer, not a failure, and does not become the last
  // error.
  cudaError_t ReturnQuery(cudaError_t result);

 private:
  const char* name_;
  uint32_t correlation_id_;
  cudaError_t result_ = cudaSuccess;
};

// The calling thread's last error; Take resets it to cudaSuccess.
cudaError_t PeekLastError();
cudaError_t TakeLastError();

}  // namespace gprof_fake
