// The calling thread's current context. Each device has one (primary) context; making it current
// makes its device the thread's current device, shared with the fake runtime's cudaSetDevice, as
// the real runtime and driver share the primary context.
#pragma once

#include "cuda_driver_abi.h"

namespace gprof_fake_driver {

// Null when the thread has set none and the driver is not initialized, or after
// cuCtxSetCurrent(NULL). Until the thread sets one, it is the primary context of the thread's
// current device, which the runtime makes current as soon as it initializes.
CUcontext CurrentContext();

// CUDA_ERROR_INVALID_CONTEXT when `context` is neither null nor a primary context.
CUresult SetCurrentContext(CUcontext context);

}  // namespace gprof_fake_driver
