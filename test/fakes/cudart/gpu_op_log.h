// Completed-work reporting: holds the GPU ops issued while an observer is installed and hands
// each to the observer once its simulated end time has passed (fake_gpu_observer.h).
#pragma once

#include <cstdint>

#include "fake_gpu_observer.h"

namespace gprof_fake {

// Whether anyone listens; ops issued while this is false are not kept.
bool GpuOpsObserved();

// Keeps `op` until it completes. Safe to call with the runtime's lock held.
void RecordGpuOp(const GprofFakeGpuOp& op);

// Hands every kept op with end_ns <= now_ns to the observer, in order of end time. Must be called
// without the runtime's lock (the observer may call the runtime). A thread that is already
// delivering, or that finds another thread delivering, returns at once unless `wait` is set.
void DeliverCompletedGpuOps(int64_t now_ns, bool wait = false);

// The latest end time of the kept ops (0 when none are kept).
int64_t LatestPendingGpuOpEndNs();

// Held across fork() (runtime.cc) so that a child never inherits the log's lock held by a thread
// that does not exist in the child.
void LockGpuOpLog();
void UnlockGpuOpLog();

}  // namespace gprof_fake
