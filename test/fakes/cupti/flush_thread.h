// cuptiActivityFlushPeriod: CUPTI's worker thread. Every period it collects the work the
// simulated device has finished, so records (and the completion of buffers they fill) also
// arrive on a thread that is not the application's. Like CUPTI's periodic flush it never
// completes a buffer that still has room.
#pragma once

#include <cstdint>

namespace gprof_fake_cupti {

// 0 stops the periodic flush. The thread is started the first time a period is set.
void SetFlushPeriod(uint32_t milliseconds, void (*deliver_gpu_ops)(int wait_for_device));

}  // namespace gprof_fake_cupti
