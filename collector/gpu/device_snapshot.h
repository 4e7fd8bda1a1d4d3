// The devices as they were just before CUDA shut down at exit. The writer
// looks for the devices on its passes, but a program that exits before its
// first pass leaves only the final one, which runs from an exit handler
// registered before CUDA initialized, and so after the driver's own teardown
// (observed: a 134 ms static-cudart program on an H200 and an H100, driver
// 580.159.04, 2026-11-27, had no device in its file). This is taken from an
// exit handler registered at cuInit (InitializeInjection), which runs before
// that teardown, on the exiting thread; never in a fork child.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collector/gpu/driver_probe.h"

namespace gprof {

// Exit handler side: asks the driver once.
void snapshot_devices_before_cuda_exit();

// Writer side: the snapshot, or 0 devices when none was taken.
size_t devices_before_cuda_exit(const DeviceInfo** devices, int32_t* driver);

}  // namespace gprof
