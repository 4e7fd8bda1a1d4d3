#include "external_ids.h"

namespace gprof_fake_cupti {
namespace {

// Fixed arrays rather than containers: API calls made from thread-exit code still read them
// after thread_local objects with destructors are gone.
constexpr int kMaxDepth = 64;
thread_local uint64_t t_stacks[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE][kMaxDepth];
thread_local int t_depths[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];

}  // namespace

bool ValidExternalKind(CUpti_ExternalCorrelationKind kind) {
  return kind > CUPTI_EXTERNAL_CORRELATION_KIND_INVALID &&
         kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE;
}

CUptiResult PushExternalId(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  int& depth = t_depths[kind];
  if (depth == kMaxDepth) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  t_stacks[kind][depth++] = id;
  return CUPTI_SUCCESS;
}

CUptiResult PopExternalId(CUpti_ExternalCorrelationKind kind, uint64_t* id) {
  int& depth = t_depths[kind];
  if (depth == 0) return CUPTI_ERROR_QUEUE_EMPTY;
  const uint64_t popped = t_stacks[kind][--depth];
  if (id != nullptr) *id = popped;
  return CUPTI_SUCCESS;
}

ExternalIds CurrentExternalIds() {
  ExternalIds ids;
  for (int kind = 0; kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; ++kind) {
    if (t_depths[kind] == 0) continue;
    ids.present[kind] = true;
    ids.id[kind] = t_stacks[kind][t_depths[kind] - 1];
  }
  return ids;
}

}  // namespace gprof_fake_cupti
