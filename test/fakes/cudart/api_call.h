// The bookkeeping every exported entry point does: the CUDA_INJECTION64_PATH injection at the
// first call, a correlation id per call, the per-thread last error, the API observer, and
// delivery of completed GPU ops. The fake driver's entry points share it through
// gprof_fake_api_enter / gprof_fake_api_exit (fake_device_api.h).
#pragma once

#include <cstdint>

#include "cuda_abi.h"
#include "fake_gpu_observer.h"

namespace gprof_fake {

// One call, from entry to return. Usage:
//   const cudaMalloc_v3020_params params{devPtr, size};
//   ApiCall call("cudaMalloc", CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, &params);
//   return call.Return(MallocImpl(...));
// `params` (the CUPTI parameter struct, or null) and `symbol_name` (the kernel of a launch) must
// outlive the call: observers read them at ENTER and at EXIT.
class ApiCall {
 public:
  // A runtime entry point; `cbid` is its CUPTI_RUNTIME_TRACE_CBID_*.
  ApiCall(const char* name, uint32_t cbid, const void* params = nullptr,
          const char* symbol_name = nullptr);

  // The driver call the real runtime makes inside one of its own calls (cudaLaunchKernel calls
  // cuLaunchKernel): domain DRIVER, a correlation id of its own, and the stream it works on is
  // also the enclosing runtime call's. `cbid` is its CUPTI_DRIVER_TRACE_CBID_*.
  struct NestedDriver {};
  ApiCall(NestedDriver, const char* name, uint32_t cbid, const void* params = nullptr,
          const char* symbol_name = nullptr);

  ~ApiCall();
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  uint32_t correlation_id() const { return record_.correlation_id; }

  // Remembers a failure as the calling thread's last error, as the real runtime does. A nested
  // driver call only reports the result (as the CUresult a driver would return) and passes it on.
  cudaError_t Return(cudaError_t result);
  // For cudaGetLastError and cudaPeekAtLastError, which report errors without recording them.
  cudaError_t ReturnUnrecorded(cudaError_t result);
  // For queries: cudaErrorNotReady is an answer, not a failure, and does not become the last
  // error.
  cudaError_t ReturnQuery(cudaError_t result);

 private:
  GprofFakeApiCall record_{};
};

// Whether the calling thread's innermost call in progress is a runtime entry point (not a driver
// call, nested or not).
bool InnermostCallIsRuntime();

// Tells the calling thread's innermost call which stream it works on or waits for (its
// GprofFakeApiCall::stream_id at EXIT). The first stream a call names is kept.
void NoteStream(uint32_t timeline_id);

// The calling thread's last error; Take resets it to cudaSuccess.
cudaError_t PeekLastError();
cudaError_t TakeLastError();

}  // namespace gprof_fake
