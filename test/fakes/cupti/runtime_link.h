// The fake runtime's hooks (test/fakes/cudart/fake_gpu_observer.h, fake_device_api.h), found by
// name at run time: the fake CUPTI never links the runtime, so that it loads next to the real
// one too, where it then behaves as CUPTI does without a driver.
#pragma once

#include <cstdint>

#include "../cudart/fake_device_api.h"
#include "../cudart/fake_gpu_observer.h"

namespace gprof_fake_cupti {

struct RuntimeLink {
  void (*flush_gpu_ops)(int wait_for_device) = nullptr;
  int (*device_count)() = nullptr;
  void* (*primary_context)(int device) = nullptr;
  int (*context_device)(const void* context) = nullptr;
  int (*current_device)() = nullptr;
  int (*stream_id)(int device, void* stream, int per_thread, uint32_t* id) = nullptr;
};

// The hooks, or null while there are none: the process runs the real runtime, or has not loaded
// one yet (the lookup is repeated until it succeeds). The first successful lookup installs the
// fake CUPTI's API and GPU observers (api_observer.h, gpu_records.h).
const RuntimeLink* Link();

// Whether calls that need the CUDA driver can work: a fake runtime is there and the mode
// no_driver is off.
bool DriverAvailable();

}  // namespace gprof_fake_cupti
