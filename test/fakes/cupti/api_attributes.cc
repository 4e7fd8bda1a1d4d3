// cuptiActivitySetAttribute / cuptiActivityGetAttribute (cupti_activity.h). Only the attribute that
// changes what a client sees is modelled (and ZEROED_OUT_ACTIVITY_BUFFER, whose promise is
// checked: activity_buffers.h): CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, "The
// value is a uint8_t ... The default value is 1" (CUPTI 13), read when the client registers its
// buffer callbacks ("should be set before registering the buffer callbacks"). The device-side
// attributes (buffer sizes, pools) have no effect on a simulated device: accepted and ignored.
#include <cstdint>
#include <cstring>

#include "activity_buffers.h"
#include "cupti_abi.h"
#include "last_error.h"
#include "runtime_link.h"

using gprof_fake_cupti::Finish;

namespace {

bool IsPerThread(CUpti_ActivityAttribute attribute) {
  return attribute == CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER;
}

}  // namespace

extern "C" CUptiResult CUPTIAPI cuptiActivitySetAttribute(CUpti_ActivityAttribute attribute,
                                                          size_t* valueSize, void* value) {
  if (!gprof_fake_cupti::DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  if (valueSize == nullptr || value == nullptr) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  if (attribute == CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER) {
    if (*valueSize != sizeof(uint8_t)) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
    uint8_t promised = 0;
    std::memcpy(&promised, value, sizeof promised);
    gprof_fake_cupti::SetZeroedBuffersPromised(promised != 0);
    return CUPTI_SUCCESS;
  }
  if (!IsPerThread(attribute)) return CUPTI_SUCCESS;
  if (*valueSize != sizeof(uint8_t)) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  uint8_t enabled = 0;
  std::memcpy(&enabled, value, sizeof enabled);
  gprof_fake_cupti::SetPerThreadBuffers(enabled != 0);
  return CUPTI_SUCCESS;
}

extern "C" CUptiResult CUPTIAPI cuptiActivityGetAttribute(CUpti_ActivityAttribute attribute,
                                                          size_t* valueSize, void* value) {
  if (!gprof_fake_cupti::DriverAvailable()) return Finish(CUPTI_ERROR_NOT_INITIALIZED);
  if (valueSize == nullptr || value == nullptr) return Finish(CUPTI_ERROR_INVALID_PARAMETER);
  if (!IsPerThread(attribute)) return Finish(CUPTI_ERROR_NOT_SUPPORTED);
  if (*valueSize < sizeof(uint8_t)) return Finish(CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT);
  const uint8_t enabled = gprof_fake_cupti::PerThreadBuffersRequested() ? 1 : 0;
  std::memcpy(value, &enabled, sizeof enabled);
  *valueSize = sizeof enabled;
  return CUPTI_SUCCESS;
}
