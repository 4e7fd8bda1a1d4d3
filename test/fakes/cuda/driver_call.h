// The bookkeeping every exported driver entry point does, shared with the fake runtime (through
// gprof_fake_api_enter / gprof_fake_api_exit) so that both APIs report to the same observers with
// correlation ids from one counter. Usage:
//   const cuMemAlloc_v2_params params{dptr, bytesize};
//   DriverCall call("cuMemAlloc_v2", CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, &params);
//   if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return
//   call.Return(error); return call.Return(...);
#pragma once

#include <cstdint>

#include "../cudart/fake_device_api.h"
#include "cuda_driver_abi.h"

namespace gprof_fake_driver {

class DriverCall {
 public:
  // `params` (CUPTI's parameter struct for the entry point) and `symbol_name` (a launch's kernel)
  // must outlive the call.
  DriverCall(const char* name, uint32_t cbid, const void* params = nullptr,
             const char* symbol_name = nullptr);
  ~DriverCall();
  DriverCall(const DriverCall&) = delete;
  DriverCall& operator=(const DriverCall&) = delete;

  uint32_t correlation_id() const { return record_.correlation_id; }

  // CUDA_ERROR_NOT_INITIALIZED until cuInit (or the runtime) has initialized the driver,
  // CUDA_ERROR_DEINITIALIZED once it has shut down at exit.
  CUresult RequireInit() const;

  CUresult Return(CUresult result);
  // For results the fake runtime computed (they are CUresult values already).
  CUresult Return(int result) { return Return(static_cast<CUresult>(result)); }

 private:
  GprofFakeApiCall record_{};
  CUresult result_ = CUDA_SUCCESS;
};

}  // namespace gprof_fake_driver
