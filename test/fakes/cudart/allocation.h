// Allocation and release of fake device and pinned memory, shared by the runtime's cudaMalloc
// family and the fake driver's cuMemAlloc / cuMemFree.
#pragma once

#include <cstddef>

#include "cuda_abi.h"
#include "memory_registry.h"
#include "runtime.h"

namespace gprof_fake {

constexpr unsigned kDeviceKinds =
    KindBit(GPROF_FAKE_MEMORY_DEVICE) | KindBit(GPROF_FAKE_MEMORY_MANAGED);

// Allocates `size` bytes of `kind` on the current device, within GPROF_FAKE_DEVICE_MEM for
// device memory. Size 0 gives a null pointer. Requires runtime.mu.
cudaError_t Allocate(Runtime& runtime, void** ptr, size_t size, GprofFakeMemoryKind kind);
// The same, taking runtime.mu.
cudaError_t AllocateLocked(void** ptr, size_t size, GprofFakeMemoryKind kind);

// Releases an allocation of one of `kinds` (KindBit mask) after the current device has finished
// its work, as cudaFree and cudaFreeHost do. A null pointer is a no-op.
cudaError_t FreeAndSynchronize(void* ptr, unsigned kinds);

}  // namespace gprof_fake
