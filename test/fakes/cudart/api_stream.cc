// Streams: creation, synchronization, cross-stream dependencies and graph capture.
#include <memory>
#include <mutex>

#include "api_call.h"
#include "clock.h"
#include "cuda_abi.h"
#include "issue.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

cudaError_t Create(cudaStream_t* stream, unsigned flags) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
  if (stream == nullptr || (flags & ~cudaStreamNonBlocking) != 0) return cudaErrorInvalidValue;
  auto object = std::make_unique<StreamObject>();
  object->device = CurrentDevice();
  object->flags = flags;
  object->timeline_id = runtime.timeline.AddStream(
      object->device,
      (flags & cudaStreamNonBlocking) != 0 ? StreamFlavor::kNonBlocking : StreamFlavor::kBlocking);
  *stream = reinterpret_cast<cudaStream_t>(runtime.streams.Add(std::move(object)));
  return cudaSuccess;
}

cudaError_t Destroy(cudaStream_t stream) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  // Work already queued still completes; only the handle goes away.
  StreamObject* object = runtime.streams.Find(stream);
  if (object == nullptr) return cudaErrorInvalidResourceHandle;
  runtime.timeline.RemoveStream(object->timeline_id);
  runtime.streams.Remove(stream);
  return cudaSuccess;
}

bool Capturing(const StreamRef& ref) {
  return ref.object != nullptr && ref.object->capture;
}

cudaError_t Synchronize(cudaStream_t stream, bool per_thread) {
  auto& runtime = GetRuntime();
  int64_t done_ns = 0;
  {
    std::lock_guard lock(runtime.mu);
    StreamRef ref;
    if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
        error != cudaSuccess) {
      return error;
    }
    if (Capturing(ref)) return cudaErrorStreamCaptureUnsupported;
    done_ns = runtime.timeline.StreamDoneNs(ref.timeline_id);
  }
  HostWait(done_ns);
  return cudaSuccess;
}

cudaError_t Query(cudaStream_t stream, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  if (Capturing(ref)) return cudaErrorStreamCaptureUnsupported;
  return runtime.timeline.StreamDoneNs(ref.timeline_id) > NowNs() ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t WaitEvent(cudaStream_t stream, cudaEvent_t event, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  const EventObject* object = runtime.events.Find(event);
  if (object == nullptr) return cudaErrorInvalidResourceHandle;
  // Capture records no event nodes; a graph replays its stream's ops in order.
  if (object->recorded && !Capturing(ref))
    runtime.timeline.WaitFor(ref.timeline_id, object->time_ns);
  return cudaSuccess;
}

cudaError_t BeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
      mode != cudaStreamCaptureModeRelaxed) {
    return cudaErrorInvalidValue;
  }
  // The default streams cannot be captured.
  if (ref.object == nullptr) return cudaErrorStreamCaptureUnsupported;
  if (ref.object->capture) return cudaErrorIllegalState;
  ref.object->capture = std::make_unique<Graph>();
  return cudaSuccess;
}

cudaError_t EndCapture(cudaStream_t stream, cudaGraph_t* graph, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  if (graph == nullptr) return cudaErrorInvalidValue;
  if (!Capturing(ref)) return cudaErrorIllegalState;
  std::unique_ptr<Graph> captured = std::move(ref.object->capture);
  captured->id = runtime.next_graph_id++;
  *graph = reinterpret_cast<cudaGraph_t>(runtime.graphs.Add(std::move(captured)));
  return cudaSuccess;
}

cudaError_t IsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  if (status == nullptr) return cudaErrorInvalidValue;
  *status = Capturing(ref) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;

extern "C" cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t* pStream) {
  ApiCall call("cudaStreamCreate");
  return call.Return(gprof_fake::Create(pStream, cudaStreamDefault));
}

extern "C" cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* pStream,
                                                           unsigned int flags) {
  ApiCall call("cudaStreamCreateWithFlags");
  return call.Return(gprof_fake::Create(pStream, flags));
}

extern "C" cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t* pStream,
                                                              unsigned int flags, int priority) {
  ApiCall call("cudaStreamCreateWithPriority");
  static_cast<void>(priority);  // the simulated device has no scheduler to prioritize
  return call.Return(gprof_fake::Create(pStream, flags));
}

extern "C" cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream) {
  ApiCall call("cudaStreamDestroy");
  return call.Return(gprof_fake::Destroy(stream));
}

extern "C" cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream) {
  ApiCall call("cudaStreamSynchronize");
  return call.Return(gprof_fake::Synchronize(stream, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  ApiCall call("cudaStreamSynchronize_ptsz");
  return call.Return(gprof_fake::Synchronize(stream, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream) {
  ApiCall call("cudaStreamQuery");
  return call.ReturnQuery(gprof_fake::Query(stream, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamQuery_ptsz(cudaStream_t stream) {
  ApiCall call("cudaStreamQuery_ptsz");
  return call.ReturnQuery(gprof_fake::Query(stream, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                                     unsigned int flags) {
  ApiCall call("cudaStreamWaitEvent");
  static_cast<void>(flags);
  return call.Return(gprof_fake::WaitEvent(stream, event, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                                          unsigned int flags) {
  ApiCall call("cudaStreamWaitEvent_ptsz");
  static_cast<void>(flags);
  return call.Return(gprof_fake::WaitEvent(stream, event, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t stream,
                                                        enum cudaStreamCaptureMode mode) {
  ApiCall call("cudaStreamBeginCapture");
  return call.Return(gprof_fake::BeginCapture(stream, mode, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                                             enum cudaStreamCaptureMode mode) {
  ApiCall call("cudaStreamBeginCapture_ptsz");
  return call.Return(gprof_fake::BeginCapture(stream, mode, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  ApiCall call("cudaStreamEndCapture");
  return call.Return(gprof_fake::EndCapture(stream, pGraph, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamEndCapture_ptsz(cudaStream_t stream,
                                                           cudaGraph_t* pGraph) {
  ApiCall call("cudaStreamEndCapture_ptsz");
  return call.Return(gprof_fake::EndCapture(stream, pGraph, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream,
                                                       enum cudaStreamCaptureStatus* pStatus) {
  ApiCall call("cudaStreamIsCapturing");
  return call.Return(gprof_fake::IsCapturing(stream, pStatus, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                            enum cudaStreamCaptureStatus* pStatus) {
  ApiCall call("cudaStreamIsCapturing_ptsz");
  return call.Return(gprof_fake::IsCapturing(stream, pStatus, true));
}
