// External correlation ids (cuptiActivityPushExternalCorrelationId / Pop): per thread, one stack
// per CUpti_ExternalCorrelationKind. An API call made while a stack is non-empty is correlated
// with its top id (EXTERNAL_CORRELATION records).
#pragma once

#include <cstdint>

#include "cupti_abi.h"

namespace gprof_fake_cupti {

// The top of every kind's stack on the calling thread; `present` says which kinds have one.
struct ExternalIds {
  uint64_t id[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE] = {};
  bool present[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE] = {};
};

bool ValidExternalKind(CUpti_ExternalCorrelationKind kind);
// CUPTI_ERROR_MAX_LIMIT_REACHED beyond the depth the fake keeps (64 per kind and thread).
CUptiResult PushExternalId(CUpti_ExternalCorrelationKind kind, uint64_t id);
// CUPTI_ERROR_QUEUE_EMPTY when the stack is empty.
CUptiResult PopExternalId(CUpti_ExternalCorrelationKind kind, uint64_t* id);
ExternalIds CurrentExternalIds();

}  // namespace gprof_fake_cupti
