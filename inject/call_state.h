// What the calling thread is inside of, so that one CUDA call is recorded
// once (DESIGN.md §3): by its interposed hook when there is one, else by the
// CUPTI callback of the outermost runtime or driver call.
#pragma once

#include <cstdint>

#include "formats/record.h"

namespace gprof::inject {

struct CallState {
  // The record of the interposed call in progress; CUPTI's callback for the
  // same call gives it its correlation id.
  ApiRecord* interposed;
  // CUPTI-recorded calls in progress (the driver calls a runtime call makes
  // are nested inside it and not recorded again).
  uint32_t cupti_depth;
};

// Global-dynamic TLS (DESIGN.md §2.5), constant-initialized: no TLS wrapper.
extern constinit thread_local CallState t_call;

}  // namespace gprof::inject
