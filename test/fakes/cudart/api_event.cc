// Events: a recorded event completes when the work queued before it on its stream completes.
#include <memory>
#include <mutex>

#include "api_call.h"
#include "clock.h"
#include "cuda_abi.h"
#include "issue.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

constexpr unsigned kEventFlags =
    cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
constexpr double kNsPerMs = 1e6;

cudaError_t Create(cudaEvent_t* event, unsigned flags) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
  if (event == nullptr || (flags & ~kEventFlags) != 0) return cudaErrorInvalidValue;
  auto object = std::make_unique<EventObject>();
  object->device = CurrentDevice();
  object->flags = flags;
  *event = reinterpret_cast<cudaEvent_t>(runtime.events.Add(std::move(object)));
  return cudaSuccess;
}

cudaError_t Record(cudaEvent_t event, cudaStream_t stream, bool per_thread) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  EventObject* object = runtime.events.Find(event);
  if (object == nullptr) return cudaErrorInvalidResourceHandle;
  StreamRef ref;
  if (const cudaError_t error = ResolveStream(runtime, stream, per_thread, &ref);
      error != cudaSuccess) {
    return error;
  }
  if (ref.object != nullptr && ref.object->capture) return cudaSuccess;  // no event nodes
  // A zero-length op marks the point after everything queued before it.
  object->time_ns = runtime.timeline.Schedule(ref.timeline_id, NowNs(), 0).end_ns;
  object->recorded = true;
  return cudaSuccess;
}

cudaError_t Query(cudaEvent_t event) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  const EventObject* object = runtime.events.Find(event);
  if (object == nullptr) return cudaErrorInvalidResourceHandle;
  return object->recorded && object->time_ns > NowNs() ? cudaErrorNotReady : cudaSuccess;
}

cudaError_t Synchronize(cudaEvent_t event) {
  auto& runtime = GetRuntime();
  int64_t done_ns = 0;
  {
    std::lock_guard lock(runtime.mu);
    const EventObject* object = runtime.events.Find(event);
    if (object == nullptr) return cudaErrorInvalidResourceHandle;
    if (object->recorded) done_ns = object->time_ns;
  }
  HostWait(done_ns);
  return cudaSuccess;
}

cudaError_t ElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  if (ms == nullptr) return cudaErrorInvalidValue;
  const EventObject* first = runtime.events.Find(start);
  const EventObject* last = runtime.events.Find(end);
  if (first == nullptr || last == nullptr) return cudaErrorInvalidResourceHandle;
  if (((first->flags | last->flags) & cudaEventDisableTiming) != 0) {
    return cudaErrorInvalidResourceHandle;
  }
  if (!first->recorded || !last->recorded) return cudaErrorInvalidResourceHandle;
  const int64_t now = NowNs();
  if (first->time_ns > now || last->time_ns > now) return cudaErrorNotReady;
  *ms = static_cast<float>(static_cast<double>(last->time_ns - first->time_ns) / kNsPerMs);
  return cudaSuccess;
}

cudaError_t Destroy(cudaEvent_t event) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return runtime.events.Remove(event) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;

extern "C" cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t* event) {
  const cudaEventCreate_v3020_params params{event};
  ApiCall call("cudaEventCreate", CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020, &params);
  return call.Return(gprof_fake::Create(event, cudaEventDefault));
}

extern "C" cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  const cudaEventCreateWithFlags_v3020_params params{event, flags};
  ApiCall call("cudaEventCreateWithFlags", CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020,
               &params);
  return call.Return(gprof_fake::Create(event, flags));
}

extern "C" cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  const cudaEventRecord_v3020_params params{event, stream};
  ApiCall call("cudaEventRecord", CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, &params);
  return call.Return(gprof_fake::Record(event, stream, false));
}

extern "C" cudaError_t CUDARTAPI cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  const cudaEventRecord_ptsz_v7000_params params{event, stream};
  ApiCall call("cudaEventRecord_ptsz", CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000,
               &params);
  return call.Return(gprof_fake::Record(event, stream, true));
}

extern "C" cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                          unsigned int flags) {
  const cudaEventRecordWithFlags_v11010_params params{event, stream, flags};
  ApiCall call("cudaEventRecordWithFlags", CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010,
               &params);
  static_cast<void>(flags);
  return call.Return(gprof_fake::Record(event, stream, false));
}

extern "C" cudaError_t CUDARTAPI cudaEventRecordWithFlags_ptsz(cudaEvent_t event,
                                                               cudaStream_t stream,
                                                               unsigned int flags) {
  const cudaEventRecordWithFlags_ptsz_v11010_params params{event, stream, flags};
  ApiCall call("cudaEventRecordWithFlags_ptsz",
               CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010, &params);
  static_cast<void>(flags);
  return call.Return(gprof_fake::Record(event, stream, true));
}

extern "C" cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event) {
  const cudaEventQuery_v3020_params params{event};
  ApiCall call("cudaEventQuery", CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, &params);
  return call.ReturnQuery(gprof_fake::Query(event));
}

extern "C" cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event) {
  const cudaEventSynchronize_v3020_params params{event};
  ApiCall call("cudaEventSynchronize", CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
               &params);
  return call.Return(gprof_fake::Synchronize(event));
}

extern "C" cudaError_t CUDARTAPI cudaEventElapsedTime(float* ms, cudaEvent_t start,
                                                      cudaEvent_t end) {
  const cudaEventElapsedTime_v12080_params params{ms, start, end};
  ApiCall call("cudaEventElapsedTime", CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v12080,
               &params);
  return call.ReturnQuery(gprof_fake::ElapsedTime(ms, start, end));
}

extern "C" cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event) {
  const cudaEventDestroy_v3020_params params{event};
  ApiCall call("cudaEventDestroy", CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020, &params);
  return call.Return(gprof_fake::Destroy(event));
}
