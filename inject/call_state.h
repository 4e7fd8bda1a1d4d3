// What the calling thread is inside of, so that one CUDA call is recorded
// once (docs/architecture.md §3.1): by its interposed hook when there is one, else by the
// CUPTI callback of the outermost runtime or driver call. The state lives in
// the collector's per-thread state (ThreadState::interposed, cupti_open_*), so
// that a hook resolves one TLS address for it and for its queue.
#pragma once

#include "collector/queues/thread_state.h"
