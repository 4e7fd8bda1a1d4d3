// The activity API's entry points (cupti_activity.h): kinds, buffers, flushing, the clock.
#include "activity_buffers.h"
#include "activity_kinds.h"
#include "config.h"
#include "cupti_abi.h"
#include "flush_thread.h"
#include "last_error.h"
#include "records.h"
#include "runtime_link.h"
#include "timestamps.h"

namespace gprof_fake_cupti {
namespace {

// The kinds that need the GPU's performance counters, which a non-root user may be denied.
bool NeedsDeviceAccess(CUpti_ActivityKind kind) {
  return kind == CUPTI_ACTIVITY_KIND_KERNEL || kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
         kind == CUPTI_ACTIVITY_KIND_MEMCPY || kind == CUPTI_ACTIVITY_KIND_MEMCPY2 ||
         kind == CUPTI_ACTIVITY_KIND_MEMSET;
}

CUptiResult Enable(CUpti_ActivityKind kind, bool enabled) {
  if (!DriverAvailable()) return CUPTI_ERROR_NOT_INITIALIZED;
  if (!ValidKind(kind)) return CUPTI_ERROR_INVALID_KIND;
  if (enabled && GetConfig().insufficient_privileges && NeedsDeviceAccess(kind)) {
    return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
  }
  // Kinds the fake has no records for are accepted and stay silent.
  SetKindEnabled(kind, enabled);
  return CUPTI_SUCCESS;
}

CUptiResult Flush(uint32_t flag) {
  if (!DriverAvailable()) return CUPTI_ERROR_NOT_INITIALIZED;
  return FlushBuffers(Link()->flush_gpu_ops, (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0);
}

CUptiResult NextRecord(uint8_t* buffer, size_t valid_bytes, CUpti_Activity** record) {
  if (buffer == nullptr || record == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  size_t offset = 0;
  if (*record != nullptr) {
    offset = static_cast<size_t>(reinterpret_cast<uint8_t*>(*record) - buffer) +
             RecordSize((*record)->kind);
  }
  if (offset >= valid_bytes) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  auto* next = reinterpret_cast<CUpti_Activity*>(buffer + offset);
  const size_t size = RecordSize(next->kind);
  if (size == 0 || valid_bytes - offset < size) return CUPTI_ERROR_INVALID_KIND;
  *record = next;
  return CUPTI_SUCCESS;
}

CUptiResult RegisterTimestamps(CUpti_TimestampCallbackFunc callback) {
  if (!DriverAvailable()) return CUPTI_ERROR_NOT_INITIALIZED;
  if (GetConfig().no_timestamp_callback) return CUPTI_ERROR_NOT_SUPPORTED;
  if (callback == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  // Allowed at any time: cupti_activity.h asks for it before any kind is enabled but lists no
  // error for a later call, and says that changing it "in the middle of the profiling session
  // can cause records generated prior to the change to report timestamps through previous
  // timestamp method". Records made from now on are on the new clock, whoever registered it;
  // kineto does this when torch.profiler starts mid-run (CuptiTimestamp.cpp,
  // configureCuptiTimestampSource, called by CuptiActivityProfiler::enableGpuTracing).
  SetTimestampCallback(callback);
  return CUPTI_SUCCESS;
}

}  // namespace
}  // namespace gprof_fake_cupti

using gprof_fake_cupti::DriverAvailable;
using gprof_fake_cupti::Finish;

extern "C" CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  return Finish(gprof_fake_cupti::Enable(kind, true));
}

extern "C" CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  return Finish(gprof_fake_cupti::Enable(kind, false));
}

extern "C" CUptiResult CUPTIAPI
cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                               CUpti_BuffersCallbackCompleteFunc funcBufferCompleted) {
  if (!DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  return Finish(
      gprof_fake_cupti::RegisterBufferCallbacks(funcBufferRequested, funcBufferCompleted));
}

extern "C" CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
  return Finish(gprof_fake_cupti::Flush(flag));
}

// Deprecated: the context and stream are ignored, as in CUPTI.
extern "C" CUptiResult CUPTIAPI cuptiActivityFlush(CUcontext context, uint32_t streamId,
                                                   uint32_t flag) {
  static_cast<void>(context);
  static_cast<void>(streamId);
  return Finish(gprof_fake_cupti::Flush(flag));
}

extern "C" CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t time) {
  if (!DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  gprof_fake_cupti::SetFlushPeriod(time, gprof_fake_cupti::Link()->flush_gpu_ops);
  return CUPTI_SUCCESS;
}

extern "C" CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer,
                                                           size_t validBufferSizeBytes,
                                                           CUpti_Activity** record) {
  // Reaching the end is how iteration stops, not a failure to remember.
  const CUptiResult result = gprof_fake_cupti::NextRecord(buffer, validBufferSizeBytes, record);
  return result == CUPTI_ERROR_MAX_LIMIT_REACHED ? result : Finish(result);
}

extern "C" CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context,
                                                                  uint32_t streamId,
                                                                  size_t* dropped) {
  // All buffers are global since CUDA 6.0: one count for every context and stream.
  static_cast<void>(context);
  static_cast<void>(streamId);
  if (!DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  if (dropped == nullptr) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  *dropped = gprof_fake_cupti::TakeDroppedRecords();
  return CUPTI_SUCCESS;
}

extern "C" CUptiResult CUPTIAPI
cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp) {
  return Finish(gprof_fake_cupti::RegisterTimestamps(funcTimestamp));
}
