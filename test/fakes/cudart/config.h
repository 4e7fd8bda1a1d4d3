// The knobs of the simulated device, read once from the environment (see test/fakes/README.md).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gprof_fake {

struct Config {
  int device_count = 1;                        // GPROF_FAKE_DEVICES
  uint64_t device_memory_bytes = 16ull << 30;  // GPROF_FAKE_DEVICE_MEM, per device
  int64_t kernel_ns = 20'000;                  // GPROF_FAKE_KERNEL_NS, every launch
  double copy_bytes_per_ns = 10.0;             // GPROF_FAKE_COPY_BYTES_PER_NS (10 = 10 GB/s)
  int64_t copy_setup_ns = 2'000;               // fixed cost of every copy and set
  int driver_version = 13000;                  // GPROF_FAKE_DRIVER_VERSION
  // GPROF_FAKE_SIGNAL_IN_LAUNCH: a signal the runtime raises on the calling thread inside every
  // launch, after the driver call (0: none). Not CUDA behaviour: it stands for a signal that
  // arrives while a thread is inside the runtime (a sampling profiler's timer, a watchdog), whose
  // handler then records on the same thread while its launch is still in progress.
  int signal_in_launch = 0;
  uint32_t first_correlation_id = 1;  // GPROF_FAKE_FIRST_CORRELATION_ID
  uint32_t correlation_step = 1;      // GPROF_FAKE_CORRELATION_STEP
  // GPROF_FAKE_KERNEL_NS_OVERRIDE: (name, ns) for the kernels that take another time.
  std::vector<std::pair<std::string, int64_t>> kernel_ns_overrides;
};

// The configuration of this process; parsed on first use. Malformed values keep the default.
const Config& GetConfig();

// Simulated duration of a launch of the kernel with this mangled name.
int64_t KernelNs(const Config& config, const std::string& mangled_name);

// Simulated duration of a copy or set of `bytes` bytes.
int64_t TransferNs(const Config& config, uint64_t bytes);

}  // namespace gprof_fake
