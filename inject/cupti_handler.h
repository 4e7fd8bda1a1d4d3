// CUPTI runtime- and driver-domain callbacks (docs/architecture.md §3.1, layer 2): they
// give interposed calls their correlation ids, and record the calls that
// interposition cannot see (a static runtime, the driver API).
#pragma once

#include <cupti.h>

#include "collector/gpu/cupti_session.h"

namespace gprof::inject {

void CUPTIAPI on_cupti_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* data);

// The callback ids the handler understands, per domain.
extern const CallbackIds kCuptiCallbacks[2];

}  // namespace gprof::inject
