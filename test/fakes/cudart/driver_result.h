// The CUresult a driver call returns for the failure the runtime reports as a cudaError_t: the
// fake driver (and the driver calls the fake runtime makes internally) share the runtime's
// implementation, and report its outcome in the driver's terms.
#pragma once

#include <cstdint>

#include "cuda_abi.h"

namespace gprof_fake {

int32_t DriverResult(cudaError_t error);

}  // namespace gprof_fake
