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
// cuptiFinalize: everything off, as at the start.
void ResetKinds();

}  // namespace gprof_fake_cupti
