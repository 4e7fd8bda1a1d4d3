// The fake runtime's GPU observer: each finished kernel, copy and set becomes the activity record
// of the kind the client enabled (none when it enabled none).
#pragma once

#include "../cudart/fake_gpu_observer.h"

namespace gprof_fake_cupti {

void OnGpuOp(const GprofFakeGpuOp* op, void* user_data);

}  // namespace gprof_fake_cupti
