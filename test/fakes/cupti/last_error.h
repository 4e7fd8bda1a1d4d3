// cuptiGetLastError: the last failure of a CUPTI call on the calling thread.
#pragma once

#include "cupti_abi.h"

namespace gprof_fake_cupti {

// Every exported function returns through this: a failure becomes the thread's last error.
CUptiResult Finish(CUptiResult result);
// Returns the thread's last error and resets it to CUPTI_SUCCESS.
CUptiResult TakeLastError();

}  // namespace gprof_fake_cupti
