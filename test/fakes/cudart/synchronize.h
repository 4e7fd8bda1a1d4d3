// Whole-device and per-stream synchronization, shared by the runtime's cudaDeviceSynchronize /
// cudaStreamSynchronize and the fake driver's cuCtxSynchronize / cuStreamSynchronize.
#pragma once

#include "cuda_abi.h"

namespace gprof_fake {

// Blocks until the current device has finished all work queued so far.
cudaError_t SynchronizeDevice();

// Blocks until `stream` has finished its work (for the legacy stream: the work it waits for).
// `per_thread` makes stream 0 the calling thread's default stream. A capturing stream cannot be
// synchronized.
cudaError_t SynchronizeStream(cudaStream_t stream, bool per_thread);

}  // namespace gprof_fake
