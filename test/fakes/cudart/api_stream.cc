// Streams: creation, synchronization, cross-stream dependencies and graph capture.
#include <memory>
#include <mutex>

#include "api_call.h"
#include "clock.h"
#include "cuda_abi.h"
#include "issue.h"
#include "runtime.h"
#include "synchronize.h"

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
  const cudaStreamCreate_v3020_params params{pStream};
  ApiCall call("cudaStreamCreate", CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020, &params);
  return call.Return(gprof_fake::Create(pStream, cudaStreamDefault));
}

extern "C" cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* pStream,
                                                           unsigned int flags) {
  const cudaStreamCreateWithFlags_v5000_params params{pStream, flags};
  ApiCall call("cudaStreamCreateWithFlags",
               CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000, &params);
  return call.Return(gprof_fake::Create(pStream, flags));
}

extern "C" cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t* pStream,
                                                              unsigned int flags, int priority) {
  const cudaStreamCreateWithPriority_v5050_params params{pStream, flags, priority};
  ApiCall call("cudaStreamCreateWithPriority",
               CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050, &params);
  static_cast<void>(priority);  // the simulated device has no scheduler to prioritize
  return call.Return(gprof_fake::Create(pStream, flags));
}

extern "C" cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream) {
  const cudaStreamDestroy_v5050_params params{stream};
  ApiCall call("cudaStreamDestroy", CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050, &params);
  return call.Return(gprof_fake::Destroy(stream));
}

extern "C" cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream) {
  const cudaStreamSynchronize_v3020_params params{stream};
  ApiCall call("cudaStreamSynchronize", CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
               &params);
  return call.Return(gprof_fake::SynchronizeStream(stream, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  const cudaStreamSynchronize_ptsz_v7000_params params{stream};
  ApiCall call("cudaStreamSynchronize_ptsz",
               CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000, &params);
  return call.Return(gprof_fake::SynchronizeStream(stream, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream) {
  const cudaStreamQuery_v3020_params params{stream};
  ApiCall call("cudaStreamQuery", CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020, &params);
  return call.ReturnQuery(gprof_fake::Query(stream, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamQuery_ptsz(cudaStream_t stream) {
  const cudaStreamQuery_ptsz_v7000_params params{stream};
  ApiCall call("cudaStreamQuery_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000,
               &params);
  return call.ReturnQuery(gprof_fake::Query(stream, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                                     unsigned int flags) {
  const cudaStreamWaitEvent_v3020_params params{stream, event, flags};
  ApiCall call("cudaStreamWaitEvent", CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, &params);
  static_cast<void>(flags);
  return call.Return(gprof_fake::WaitEvent(stream, event, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                                          unsigned int flags) {
  const cudaStreamWaitEvent_ptsz_v7000_params params{stream, event, flags};
  ApiCall call("cudaStreamWaitEvent_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000,
               &params);
  static_cast<void>(flags);
  return call.Return(gprof_fake::WaitEvent(stream, event, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t stream,
                                                        enum cudaStreamCaptureMode mode) {
  const cudaStreamBeginCapture_v10000_params params{stream, mode};
  ApiCall call("cudaStreamBeginCapture", CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000,
               &params);
  return call.Return(gprof_fake::BeginCapture(stream, mode, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamBeginCapture_ptsz(cudaStream_t stream,
                                                             enum cudaStreamCaptureMode mode) {
  const cudaStreamBeginCapture_ptsz_v10000_params params{stream, mode};
  ApiCall call("cudaStreamBeginCapture_ptsz",
               CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000, &params);
  return call.Return(gprof_fake::BeginCapture(stream, mode, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  const cudaStreamEndCapture_v10000_params params{stream, pGraph};
  ApiCall call("cudaStreamEndCapture", CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000,
               &params);
  return call.Return(gprof_fake::EndCapture(stream, pGraph, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamEndCapture_ptsz(cudaStream_t stream,
                                                           cudaGraph_t* pGraph) {
  const cudaStreamEndCapture_ptsz_v10000_params params{stream, pGraph};
  ApiCall call("cudaStreamEndCapture_ptsz",
               CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000, &params);
  return call.Return(gprof_fake::EndCapture(stream, pGraph, true));
}

extern "C" cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream,
                                                       enum cudaStreamCaptureStatus* pStatus) {
  ApiCall call("cudaStreamIsCapturing", CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000);
  return call.Return(gprof_fake::IsCapturing(stream, pStatus, false));
}

extern "C" cudaError_t CUDARTAPI cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                            enum cudaStreamCaptureStatus* pStatus) {
  ApiCall call("cudaStreamIsCapturing_ptsz",
               CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_ptsz_v10000);
  return call.Return(gprof_fake::IsCapturing(stream, pStatus, true));
}
