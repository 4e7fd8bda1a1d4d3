// The parts of an API call that the loader (profile.h) hands its GPU work
// on with: what a GPU row's call, a launch and --range's scope need.
#pragma once

#include <cstdint>

#include "formats/api_ids.h"

namespace gprof::analysis {

struct CallRef {
  uint64_t correlation;  // as recorded; unwrapped once paired (call_pairing.h)
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t index;  // the call's position among the file's API calls (ApiCall::index)
  ApiId api;
};

}  // namespace gprof::analysis
