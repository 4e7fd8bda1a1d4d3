// What the fake devices claim to be: an H100-like part, so that programs that size their launches
// from the properties take their usual code paths.
#pragma once

#include "config.h"
#include "cuda_abi.h"

namespace gprof_fake {

void FillDeviceProperties(const Config& config, int device, cudaDeviceProp* prop);

// cudaDeviceGetAttribute, answered from the same properties; false for an unknown attribute.
bool DeviceAttribute(const Config& config, int device, cudaDeviceAttr attr, int* value);

}  // namespace gprof_fake
