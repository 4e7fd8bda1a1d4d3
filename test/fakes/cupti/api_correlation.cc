// External correlation (cupti_activity.h): the ids a framework pushes around the CUDA calls it
// makes, reported as EXTERNAL_CORRELATION records next to those calls' API records.
#include "cupti_abi.h"
#include "external_ids.h"
#include "last_error.h"
#include "runtime_link.h"

using gprof_fake_cupti::Finish;

extern "C" CUptiResult CUPTIAPI
cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  if (!gprof_fake_cupti::DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  if (!gprof_fake_cupti::ValidExternalKind(kind)) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  return Finish(gprof_fake_cupti::PushExternalId(kind, id));
}

extern "C" CUptiResult CUPTIAPI
cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t* lastId) {
  if (!gprof_fake_cupti::DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  if (!gprof_fake_cupti::ValidExternalKind(kind)) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  return Finish(gprof_fake_cupti::PopExternalId(kind, lastId));
}
