#include "driver_call.h"

namespace gprof_fake_driver {

DriverCall::DriverCall(const char* name, uint32_t cbid, const void* params,
                       const char* symbol_name) {
  record_.name = name;
  record_.cbid = cbid;
  record_.params = params;
  record_.symbol_name = symbol_name;
  gprof_fake_api_enter(&record_);
}

DriverCall::~DriverCall() {
  gprof_fake_api_exit(&record_, static_cast<int32_t>(result_));
}

CUresult DriverCall::RequireInit() const {
  // Shut down at exit, when the runtime tears itself down: cudaErrorCudartUnloading is "called
  // during process shut down, at a point in time after CUDA driver has been unloaded" (CUDA
  // Runtime API, enum cudaError); cuda.h's CUDA_ERROR_DEINITIALIZED is "the CUDA driver is in
  // the process of shutting down". Observed (H200 and H100, driver 580.159.04, 2026-11-27): a
  // static-cudart program's file had no device, which gprof's exit handler, registered before
  // CUDA initialized, looked for only after that teardown.
  if (gprof_fake_driver_deinitialized() != 0) return CUDA_ERROR_DEINITIALIZED;
  return gprof_fake_driver_initialized() != 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult DriverCall::Return(CUresult result) {
  result_ = result;
  return result;
}

}  // namespace gprof_fake_driver
