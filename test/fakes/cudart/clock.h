// Real time for the simulated device: the fake's timeline runs on the same clock as the profiler.
#pragma once

#include <cstdint>

namespace gprof_fake {

// CLOCK_MONOTONIC in nanoseconds.
int64_t NowNs();

// Blocks the calling thread until NowNs() >= deadline_ns. Sleeps for the bulk of the wait and
// spins for the last stretch, because a plain sleep overshoots by the timer slack (~50 us), which
// would be as long as a whole simulated kernel.
void SleepUntil(int64_t deadline_ns);

}  // namespace gprof_fake
