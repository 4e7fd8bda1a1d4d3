// CUPTI's clock. The fake runtime reports everything on CLOCK_MONOTONIC; CUPTI reports it on its
// own clock: CLOCK_MONOTONIC + GPROF_FAKE_CUPTI_CLOCK_OFFSET_NS, or the client's clock once it
// registers a timestamp callback (converted through two readings of it at registration: its ticks
// need not be nanoseconds). Either way a profiler that mixes clocks without converting sees it.
#pragma once

#include <cstdint>

#include "cupti_abi.h"

namespace gprof_fake_cupti {

int64_t MonotonicNs();

// A CLOCK_MONOTONIC time from the fake runtime, on CUPTI's clock.
uint64_t ToCuptiTime(int64_t monotonic_ns);

// Now on CUPTI's clock: the callback's value when one is registered.
uint64_t CuptiNow();

// Switches to `callback`'s clock (null: back to the default clock).
void SetTimestampCallback(CUpti_TimestampCallbackFunc callback);

}  // namespace gprof_fake_cupti
