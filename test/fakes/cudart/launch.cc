#include "launch.h"

#include <mutex>

#include "issue.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

constexpr uint64_t kMaxThreadsPerBlock = 1024;

cudaError_t ValidateConfiguration(dim3 grid, dim3 block) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return cudaErrorInvalidConfiguration;
  if (block.x == 0 || block.y == 0 || block.z == 0) return cudaErrorInvalidConfiguration;
  if (grid.x > 0x7fffffffu || grid.y > 65535 || grid.z > 65535) {
    return cudaErrorInvalidConfiguration;
  }
  if (block.x > 1024 || block.y > 1024 || block.z > 64) return cudaErrorInvalidConfiguration;
  const uint64_t threads = static_cast<uint64_t>(block.x) * block.y * block.z;
  return threads > kMaxThreadsPerBlock ? cudaErrorInvalidConfiguration : cudaSuccess;
}

}  // namespace

cudaError_t IssueLaunch(uint32_t correlation_id, const KernelInfo* kernel, dim3 grid, dim3 block,
                        size_t shared_bytes, cudaStream_t stream, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
  if (kernel == nullptr) return cudaErrorInvalidDeviceFunction;
  if (const cudaError_t error = ValidateConfiguration(grid, block); error != cudaSuccess) {
    return error;
  }
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  OpRequest request;
  request.kind = GPROF_FAKE_OP_KERNEL;
  request.kernel = kernel;
  request.grid = grid;
  request.block = block;
  request.shared_bytes = shared_bytes;
  Issue(runtime, ref, request, correlation_id);
  return cudaSuccess;
}

}  // namespace gprof_fake
