// Turning an OpRequest into simulated device work: capture into a graph, or move the bytes,
// place the op on the timeline and report it.
#pragma once

#include <cstdint>

#include "runtime.h"
#include "timeline.h"

namespace gprof_fake {

// Where a replayed op came from; zeros for ops issued directly.
struct GraphOrigin {
  uint32_t graph_id = 0;
  uint32_t node_id = 0;
};

// Issues `request` on `stream` on behalf of the API call `correlation_id`. On a capturing stream
// the request becomes a graph node and nothing runs (the returned interval is empty, so a caller
// that waits for it returns at once). Otherwise copies and sets take effect immediately, since
// device memory is host memory, and the op occupies its simulated interval on the timeline.
// Requires runtime.mu.
// `runtime_correlation_id`: for a copy a runtime call made through a nested driver call, the
// runtime call's id (`correlation_id` is the driver call's).
Interval Issue(Runtime& runtime, const StreamRef& stream, const OpRequest& request,
               uint32_t correlation_id, GraphOrigin origin = {},
               uint32_t runtime_correlation_id = 0);

// Blocks the host until `until_ns` (the end of simulated work it waits for) and reports the
// ops that completed meanwhile. Must be called without runtime.mu.
void HostWait(int64_t until_ns);

}  // namespace gprof_fake
