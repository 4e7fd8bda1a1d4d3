// Copies and sets, shared by every cudaMemcpy* and cudaMemset* entry point: validation (so that a
// bad pointer is an error code, not a crash in the host program), the host-blocking rules of the
// real runtime, and issue on the timeline.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda_abi.h"

namespace gprof_fake {

// `height` rows of `width` bytes; rows are `*_pitch` bytes apart (pitch = width for 1D copies).
struct CopyArgs {
  void* dst = nullptr;
  size_t dst_pitch = 0;
  const void* src = nullptr;
  size_t src_pitch = 0;
  size_t width = 0;
  size_t height = 1;
  cudaMemcpyKind kind = cudaMemcpyDefault;
  // cudaMemcpyPeer*: both ordinals are given, and the copy waits for all work on both devices.
  bool peer = false;
  int dst_device = 0;
  int src_device = 0;
};

struct SetArgs {
  void* dst = nullptr;
  size_t pitch = 0;
  int value = 0;
  size_t width = 0;  // bytes
  size_t height = 1;
  // 1 for cudaMemset (`value` is a byte), 4 for cuMemsetD32 (`value` is a 32-bit word).
  unsigned element_bytes = 1;
};

enum class HostBlocking {
  kAsync,  // the *Async entry points never block the host
  kSync,   // the synchronous entry points block as the real runtime's do (see README)
};

// Both issue their op on behalf of the API call `correlation_id`.
cudaError_t Copy(uint32_t correlation_id, const CopyArgs& args, cudaStream_t stream,
                 bool per_thread, HostBlocking blocking);

cudaError_t Set(uint32_t correlation_id, const SetArgs& args, cudaStream_t stream, bool per_thread,
                HostBlocking blocking);

}  // namespace gprof_fake
