// The thread ids in API records, as cuptiSetThreadIdType chooses them: pthread_self() by default,
// the kernel's thread id (gettid) with CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM.
#pragma once

#include <cstdint>

#include "cupti_abi.h"

namespace gprof_fake_cupti {

void SetThreadIdType(CUpti_ActivityThreadIdType type);
CUpti_ActivityThreadIdType ThreadIdType();
// The calling thread's id of the current type.
uint32_t CurrentThreadId();

}  // namespace gprof_fake_cupti
