// Versions, result texts, the last error, the clock, ids of contexts, devices and streams, and
// the thread-id type.
#include "config.h"
#include "cupti_abi.h"
#include "last_error.h"
#include "records.h"
#include "result_text.h"
#include "runtime_link.h"
#include "thread_ids.h"
#include "timestamps.h"

namespace gprof_fake_cupti {
namespace {

// The device of `context`, NULL meaning the calling thread's current one; -1 if none.
int DeviceOf(CUcontext context) {
  const RuntimeLink* link = Link();
  if (context != nullptr) return link->context_device(context);
  const int device = link->current_device();
  return device < link->device_count() ? device : -1;
}

CUptiResult StreamId(CUcontext context, CUstream stream, bool per_thread, uint32_t* id) {
  if (!DriverAvailable()) return CUPTI_ERROR_NOT_INITIALIZED;
  if (id == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  const int device = DeviceOf(context);
  if (device < 0) return CUPTI_ERROR_INVALID_CONTEXT;
  return Link()->stream_id(device, stream, per_thread ? 1 : 0, id) == CUDA_SUCCESS
             ? CUPTI_SUCCESS
             : CUPTI_ERROR_INVALID_STREAM;
}

}  // namespace
}  // namespace gprof_fake_cupti

using gprof_fake_cupti::DriverAvailable;
using gprof_fake_cupti::Finish;

extern "C" CUptiResult CUPTIAPI cuptiGetVersion(uint32_t* version) {
  if (version == nullptr) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  const gprof_fake_cupti::Config& config = gprof_fake_cupti::GetConfig();
#ifdef GPROF_FAKE_CUPTI_VERSION  // the libcupti.so.12 build (test/fakes/cupti12)
  *version = config.has_version ? config.version : GPROF_FAKE_CUPTI_VERSION;
#else
  *version = config.has_version ? config.version : CUPTI_API_VERSION;
#endif
  return CUPTI_SUCCESS;
}

extern "C" CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  if (str == nullptr) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  *str = gprof_fake_cupti::ResultName(result);
  return Finish(*str != nullptr ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER);
}

extern "C" CUptiResult CUPTIAPI cuptiGetLastError(void) {
  return gprof_fake_cupti::TakeLastError();
}

extern "C" CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  if (!DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  if (timestamp == nullptr) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  *timestamp = gprof_fake_cupti::CuptiNow();
  return CUPTI_SUCCESS;
}

extern "C" CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t* deviceId) {
  if (!DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  if (deviceId == nullptr) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  const int device = gprof_fake_cupti::DeviceOf(context);
  if (device < 0) return Finish(CUPTI_ERROR_INVALID_CONTEXT);
  *deviceId = static_cast<uint32_t>(device);
  return CUPTI_SUCCESS;
}

extern "C" CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t* contextId) {
  if (!DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  if (contextId == nullptr) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  if (context == nullptr) return Finish(CUPTI_ERROR_INVALID_CONTEXT);
  const int device = gprof_fake_cupti::Link()->context_device(context);
  if (device < 0) return Finish(CUPTI_ERROR_INVALID_CONTEXT);
  *contextId = gprof_fake_cupti::ContextIdOf(static_cast<uint32_t>(device));
  return CUPTI_SUCCESS;
}

extern "C" CUptiResult CUPTIAPI cuptiGetStreamId(CUcontext context, CUstream stream,
                                                 uint32_t* streamId) {
  return Finish(gprof_fake_cupti::StreamId(context, stream, false, streamId));
}

extern "C" CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream,
                                                   uint8_t perThreadStream, uint32_t* streamId) {
  return Finish(gprof_fake_cupti::StreamId(context, stream, perThreadStream != 0, streamId));
}

extern "C" CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type) {
  if (type != CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT &&
      type != CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) {
    return Finish(CUPTI_ERROR_NOT_SUPPORTED);
  }
  gprof_fake_cupti::SetThreadIdType(type);
  return CUPTI_SUCCESS;
}

extern "C" CUptiResult CUPTIAPI cuptiGetThreadIdType(CUpti_ActivityThreadIdType* type) {
  if (type == nullptr) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  *type = gprof_fake_cupti::ThreadIdType();
  return CUPTI_SUCCESS;
}
