// The device side of a kernel launch, shared by the runtime's launch entry points and the fake
// driver's cuLaunchKernel: validation and issue on the timeline.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda_abi.h"
#include "module_registry.h"

namespace gprof_fake {

// Validates the launch and queues the kernel on `stream` on behalf of the API call
// `correlation_id`. `per_thread` makes stream 0 the calling thread's default stream.
cudaError_t IssueLaunch(uint32_t correlation_id, const KernelInfo* kernel, dim3 grid, dim3 block,
                        size_t shared_bytes, cudaStream_t stream, bool per_thread);

}  // namespace gprof_fake
