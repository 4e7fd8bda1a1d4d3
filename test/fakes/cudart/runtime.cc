#include "runtime.h"

#include <pthread.h>

#include "api_call.h"
#include "gpu_op_log.h"

namespace gprof_fake {
namespace {

thread_local int t_current_device = 0;
// Timeline ids of this thread's per-thread default streams, by device; 0 until first used.
thread_local std::vector<uint32_t> t_per_thread_streams;

uint32_t PerThreadStream(Runtime& runtime, int device) {
  if (t_per_thread_streams.size() <= static_cast<size_t>(device)) {
    t_per_thread_streams.resize(static_cast<size_t>(device) + 1, 0);
  }
  uint32_t& id = t_per_thread_streams[static_cast<size_t>(device)];
  // The per-thread default stream synchronizes with the legacy stream like any blocking stream.
  if (id == 0) id = runtime.timeline.AddStream(device, StreamFlavor::kBlocking);
  return id;
}

// fork() keeps only the calling thread: the locks are taken before it, in the runtime's lock
// order, so that the child never inherits one held by a thread it does not have.
void PrepareFork() {
  GetRuntime().mu.lock();
  LockGpuOpLog();
}

void ResumeParent() {
  UnlockGpuOpLog();
  GetRuntime().mu.unlock();
}

void ResumeChild() {
  UnlockGpuOpLog();
  Runtime& runtime = GetRuntime();
  runtime.forked_child = runtime.context_created;
  runtime.mu.unlock();
}

}  // namespace

Runtime::Runtime(const Config& config_in) : config(config_in), timeline(config_in.device_count) {}

Runtime& GetRuntime() {
  static Runtime* runtime = [] {
    auto* created = new Runtime(GetConfig());
    pthread_atfork(PrepareFork, ResumeParent, ResumeChild);
    return created;
  }();
  return *runtime;
}

int CurrentDevice() {
  return t_current_device;
}

void SetCurrentDevice(int device) {
  t_current_device = device;
}

cudaError_t RequireDevice(Runtime& runtime) {
  if (runtime.unloading.load(std::memory_order_acquire)) return cudaErrorCudartUnloading;
  if (runtime.forked_child) return cudaErrorInitializationError;
  if (runtime.config.device_count == 0) return cudaErrorNoDevice;
  runtime.context_created = true;
  return cudaSuccess;
}

cudaError_t ResolveStream(Runtime& runtime, cudaStream_t stream, bool per_thread_default,
                          StreamRef* out) {
  if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
  const int device = CurrentDevice();
  if (stream == nullptr) stream = per_thread_default ? cudaStreamPerThread : cudaStreamLegacy;
  if (stream == cudaStreamLegacy) {
    *out = StreamRef{runtime.timeline.LegacyStream(device), device, nullptr, nullptr};
  } else if (stream == cudaStreamPerThread) {
    *out = StreamRef{PerThreadStream(runtime, device), device, cudaStreamPerThread, nullptr};
  } else {
    StreamObject* object = runtime.streams.Find(stream);
    if (object == nullptr) return cudaErrorInvalidResourceHandle;
    *out = StreamRef{object->timeline_id, object->device, stream, object};
  }
  // CUPTI's synchronization records name the stream a call waited for.
  NoteStream(out->timeline_id);
  return cudaSuccess;
}

cudaError_t StreamIdOnDevice(Runtime& runtime, int device, cudaStream_t stream,
                             bool per_thread_default, uint32_t* id) {
  if (device < 0 || device >= runtime.config.device_count) return cudaErrorInvalidDevice;
  if (stream == nullptr) stream = per_thread_default ? cudaStreamPerThread : cudaStreamLegacy;
  if (stream == cudaStreamLegacy) {
    *id = runtime.timeline.LegacyStream(device);
  } else if (stream == cudaStreamPerThread) {
    *id = PerThreadStream(runtime, device);
  } else {
    const StreamObject* object = runtime.streams.Find(stream);
    if (object == nullptr) return cudaErrorInvalidResourceHandle;
    *id = object->timeline_id;
  }
  return cudaSuccess;
}

}  // namespace gprof_fake
