#include "api_observer.h"

#include "activity_buffers.h"
#include "activity_kinds.h"
#include "config.h"
#include "external_ids.h"
#include "records.h"
#include "runtime_link.h"
#include "subscriber.h"

namespace gprof_fake_cupti {
namespace {

// What CUPTI keeps for a call between its ENTER and EXIT.
struct InFlight {
  uint32_t correlation_id = 0;
  uint32_t domain = 0;
  bool nested = false;     // a driver call inside a runtime call on this thread
  uint64_t user_data = 0;  // CUpti_CallbackData::correlationData points here
  ExternalIds external;    // the external ids current at ENTER
};

// A fixed array, so that &user_data stays put while calls nest and the stack stays usable from
// thread-exit code. Calls nested deeper than this get a frame that lives only for one callback.
constexpr int kMaxDepth = 32;
thread_local InFlight t_calls[kMaxDepth];
thread_local int t_depth = 0;

bool InsideRuntimeCall() {
  for (int i = 0; i < t_depth && i < kMaxDepth; ++i) {
    if (t_calls[i].domain == GPROF_FAKE_DOMAIN_RUNTIME) return true;
  }
  return false;
}

InFlight Start(const GprofFakeApiCall& call) {
  InFlight frame;
  frame.correlation_id = call.correlation_id;
  frame.domain = call.domain;
  frame.nested = call.domain == GPROF_FAKE_DOMAIN_DRIVER && InsideRuntimeCall();
  frame.external = CurrentExternalIds();
  return frame;
}

CUpti_CallbackDomain DomainOf(const GprofFakeApiCall& call) {
  return call.domain == GPROF_FAKE_DOMAIN_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API
                                                  : CUPTI_CB_DOMAIN_DRIVER_API;
}

void Callback(const GprofFakeApiCall& call, CUpti_ApiCallbackSite site, InFlight* frame) {
  int32_t result = call.result;  // cudaError_t or CUresult: both are int-sized enums
  CUpti_CallbackData data{};
  data.callbackSite = site;
  data.functionName = call.name;
  data.functionParams = call.params;
  data.functionReturnValue = site == CUPTI_API_EXIT ? &result : nullptr;
  data.symbolName = call.symbol_name;
  data.context = static_cast<CUcontext>(Link()->primary_context(static_cast<int>(call.device)));
  data.contextUid = ContextIdOf(call.device);
  data.correlationData = &frame->user_data;
  data.correlationId = call.correlation_id;
  DispatchApiCallback(DomainOf(call), call.cbid, data);
}

CUpti_ActivitySynchronizationType SyncTypeOf(const GprofFakeApiCall& call) {
  if (call.domain == GPROF_FAKE_DOMAIN_RUNTIME) {
    switch (call.cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
        return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
        return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
      case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
        return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
        return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
      default:
        return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN;
    }
  }
  switch (call.cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2:
      return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
      return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
      return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
      return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
    default:
      return CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN;
  }
}

void AddRecords(const GprofFakeApiCall& call, const InFlight& frame) {
  const CUpti_ActivityKind api_kind = call.domain == GPROF_FAKE_DOMAIN_RUNTIME
                                          ? CUPTI_ACTIVITY_KIND_RUNTIME
                                          : CUPTI_ACTIVITY_KIND_DRIVER;
  if (KindEnabled(api_kind)) {
    // Each external id precedes the API record it correlates (cupti_activity.h).
    if (KindEnabled(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) {
      for (int kind = 0; kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; ++kind) {
        if (!frame.external.present[kind]) continue;
        AddRecord(ExternalRecord(static_cast<CUpti_ExternalCorrelationKind>(kind),
                                 frame.external.id[kind], call.correlation_id));
      }
    }
    AddRecord(ApiRecord(call, api_kind));
  }
  if (frame.nested || !KindEnabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)) return;
  if (const CUpti_ActivitySynchronizationType type = SyncTypeOf(call);
      type != CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN) {
    AddRecord(SyncRecord(call, type));
  }
}

// GPROF_FAKE_CUPTI=exit_without_enter=N (the Nth runtime call of each thread): this call's ENTER is
// not delivered (it began before its callback was enabled). CUpti_CallbackData::correlationData is
// documented only from an ENTER to its EXIT, so its slot keeps the stale value of an earlier call
// at this depth.
bool SkipEnter(const GprofFakeApiCall& call) {
  const uint64_t every = GetConfig().exit_without_enter;
  if (every == 0 || call.domain != GPROF_FAKE_DOMAIN_RUNTIME) return false;
  static thread_local uint64_t calls = 0;  // per thread, so that the pattern is deterministic
  return ++calls % every == 0;
}

void Enter(const GprofFakeApiCall& call) {
  NoteIssue(call.correlation_id);  // the kinds its GPU work, if any, is collected with
  InFlight frame = Start(call);
  const bool skip = SkipEnter(call);
  if (t_depth >= kMaxDepth) {
    ++t_depth;
    if (!skip) Callback(call, CUPTI_API_ENTER, &frame);
    return;
  }
  InFlight* slot = &t_calls[t_depth++];
  if (skip) {
    frame.user_data = slot->user_data;
    *slot = frame;
    return;
  }
  *slot = frame;
  Callback(call, CUPTI_API_ENTER, slot);
}

void Exit(const GprofFakeApiCall& call) {
  InFlight* slot = nullptr;
  if (t_depth > 0 && t_depth <= kMaxDepth &&
      t_calls[t_depth - 1].correlation_id == call.correlation_id) {
    slot = &t_calls[t_depth - 1];
  }
  // No slot: too deep, or the call started before the observer was installed.
  InFlight transient = slot == nullptr ? Start(call) : InFlight{};
  InFlight* frame = slot != nullptr ? slot : &transient;
  Callback(call, CUPTI_API_EXIT, frame);
  if (call.cbid != 0) AddRecords(call, *frame);
  if (slot != nullptr || t_depth > kMaxDepth) --t_depth;
}

}  // namespace

void OnApiCall(const GprofFakeApiCall* call, void* user_data) {
  static_cast<void>(user_data);
  if (call->phase == GPROF_FAKE_API_ENTER) {
    Enter(*call);
  } else {
    Exit(*call);
  }
}

}  // namespace gprof_fake_cupti
