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
  return gprof_fake_driver_initialized() != 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult DriverCall::Return(CUresult result) {
  result_ = result;
  return result;
}

}  // namespace gprof_fake_driver
