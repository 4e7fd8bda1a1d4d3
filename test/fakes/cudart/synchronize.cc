#include "synchronize.h"

#include <cstdint>
#include <mutex>

#include "issue.h"
#include "runtime.h"

namespace gprof_fake {

cudaError_t SynchronizeDevice() {
  auto& runtime = GetRuntime();
  int64_t done_ns = 0;
  {
    std::lock_guard lock(runtime.mu);
    if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
    done_ns = runtime.timeline.DeviceDoneNs(CurrentDevice());
  }
  HostWait(done_ns);
  return cudaSuccess;
}

cudaError_t SynchronizeStream(cudaStream_t stream, bool per_thread) {
  auto& runtime = GetRuntime();
  int64_t done_ns = 0;
  {
    std::lock_guard lock(runtime.mu);
    StreamRef ref;
    if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
        error != cudaSuccess) {
      return error;
    }
    if (ref.object != nullptr && ref.object->capture) return cudaErrorStreamCaptureUnsupported;
    done_ns = runtime.timeline.StreamDoneNs(ref.timeline_id);
  }
  HostWait(done_ns);
  return cudaSuccess;
}

}  // namespace gprof_fake
