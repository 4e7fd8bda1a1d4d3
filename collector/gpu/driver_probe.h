// Questions for the CUDA driver that the writer asks off the hot path, once
// CUDA runs: is it initialized, and what are the devices (docs/architecture.md §3.1). The
// driver is found loaded (dlopen RTLD_NOLOAD), never loaded by us, and never
// asked in a fork child (docs/architecture.md §2.6).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gprof {

// libcuda.so.1 is loaded and cuInit has run (cuDeviceGetCount answers
// CUDA_ERROR_NOT_INITIALIZED before it, and changes nothing).
bool cuda_running();

struct DeviceInfo {
  uint32_t ordinal = 0;
  char name[256] = {};  // printable ASCII (the file's string field must be UTF-8)
  uint32_t compute_major = 0;
  uint32_t compute_minor = 0;
  uint32_t sm_count = 0;
  uint64_t total_memory = 0;
  char pci_bus_id[32] = {};
};

// Fills up to `max` devices; returns how many (0 when CUDA does not run).
size_t query_devices(DeviceInfo* out, size_t max);

// cuDriverGetVersion (12080 for 12.8), which needs no cuInit; 0 while
// libcuda.so.1 is not loaded.
int32_t driver_version();

}  // namespace gprof
