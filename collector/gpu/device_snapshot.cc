#include "collector/gpu/device_snapshot.h"

#include <atomic>

#include "collector/process/process_state.h"

namespace gprof {
namespace {

constexpr size_t kMaxDevices = 64;
DeviceInfo g_devices[kMaxDevices];
int32_t g_driver = 0;
// The count, published after the devices: the writer reads it from its final
// pass, which runs after this handler, on another thread.
constinit std::atomic<size_t> g_count{0};
constinit std::atomic<bool> g_taken{false};

}  // namespace

void snapshot_devices_before_cuda_exit() {
  if (process_state().forked_child.load(std::memory_order_acquire)) return;
  if (g_taken.exchange(true, std::memory_order_acq_rel)) return;
  if (!cuda_running()) return;
  const size_t n = query_devices(g_devices, kMaxDevices);
  g_driver = driver_version();
  g_count.store(n, std::memory_order_release);
}

size_t devices_before_cuda_exit(const DeviceInfo** devices, int32_t* driver) {
  const size_t n = g_count.load(std::memory_order_acquire);
  *devices = g_devices;
  *driver = g_driver;
  return n;
}

}  // namespace gprof
