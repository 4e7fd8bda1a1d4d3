// The names cuptiGetResultString reports.
#pragma once

#include "cupti_abi.h"

namespace gprof_fake_cupti {

// Null for a value that is not a CUptiResult.
const char* ResultName(CUptiResult result);

}  // namespace gprof_fake_cupti
