// Which activity kinds the client has enabled. Read on every API call and GPU op, from any
// thread, so each kind is an atomic flag.
#pragma once

#include "cupti_abi.h"

namespace gprof_fake_cupti {

bool ValidKind(CUpti_ActivityKind kind);
bool KindEnabled(CUpti_ActivityKind kind);
// `kind` must be valid.
void SetKindEnabled(CUpti_ActivityKind kind, bool enabled);
// Whether any kind has been enabled since the start (or cuptiFinalize): the timestamp callback
// must be registered before that.
bool AnyKindEverEnabled();
// Whether `kind` was enabled when the API call `correlation_id` began: records of GPU work are
// decided when the work is issued. cupti_activity.h, cuptiActivityDisable: "Disable collection of
// a specific kind of activity record"; work issued while its kind is disabled is not collected
// at all, and work collected before is still delivered (cuptiActivityFlushAll "returns all the
// activity buffers which have all the activity records completed"). Falls back to the kind's
// state now for a call the fake did not see begin (or one forgotten, 65,536 calls later).
bool KindEnabledAtIssue(CUpti_ActivityKind kind, uint32_t correlation_id);
// The API call `correlation_id` begins: remembers the kinds enabled now.
void NoteIssue(uint32_t correlation_id);
// cuptiFinalize: everything off, as at the start.
void ResetKinds();

}  // namespace gprof_fake_cupti
