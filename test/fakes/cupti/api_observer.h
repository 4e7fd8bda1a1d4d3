// The fake runtime's API observer: every runtime and driver call becomes CUPTI callbacks (ENTER
// and EXIT, on the calling thread, when the subscriber enabled them) and, at EXIT, the activity
// records of the kinds enabled: EXTERNAL_CORRELATION then RUNTIME / DRIVER, and SYNCHRONIZATION
// for the synchronizing calls. Driver calls the runtime makes inside its own (cuLaunchKernel in
// cudaLaunchKernel) are reported like any other driver call, but produce no synchronization
// record: the runtime call already did.
#pragma once

#include "../cudart/fake_gpu_observer.h"

namespace gprof_fake_cupti {

void OnApiCall(const GprofFakeApiCall* call, void* user_data);

}  // namespace gprof_fake_cupti
