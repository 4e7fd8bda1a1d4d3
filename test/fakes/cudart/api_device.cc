// Devices, versions, whole-device synchronization and reset, profiler control.
#include <mutex>

#include "api_call.h"
#include "config.h"
#include "cuda_abi.h"
#include "device_properties.h"
#include "issue.h"
#include "runtime.h"

namespace gprof_fake {
namespace {

constexpr int kRuntimeVersion = 13000;

cudaError_t ValidateDevice(int device) {
  const Config& config = GetConfig();
  if (config.device_count == 0) return cudaErrorNoDevice;
  return device >= 0 && device < config.device_count ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t SynchronizeDevice() {
  auto& runtime = GetRuntime();
  int64_t done_ns = 0;
  {
    std::lock_guard lock(runtime.mu);
    if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
    done_ns = runtime.timeline.DeviceDoneNs(CurrentDevice());
  }
  HostWait(done_ns);
  return cudaSuccess;
}

// Destroys what belongs to the current device: its memory, streams and events. Waits for its
// work first, as tearing down a real context does.
cudaError_t ResetDevice() {
  auto& runtime = GetRuntime();
  int64_t done_ns = 0;
  {
    std::lock_guard lock(runtime.mu);
    if (const cudaError_t error = RequireDevice(runtime); error != cudaSuccess) return error;
    const int device = CurrentDevice();
    done_ns = runtime.timeline.DeviceDoneNs(device);
    runtime.memory.FreeDevice(device, KindBit(GPROF_FAKE_MEMORY_DEVICE) |
                                          KindBit(GPROF_FAKE_MEMORY_MANAGED) |
                                          KindBit(GPROF_FAKE_MEMORY_PINNED));
    runtime.streams.ForEach([&](const StreamObject& stream) {
      if (stream.device == device) runtime.timeline.RemoveStream(stream.timeline_id);
    });
    runtime.streams.RemoveIf([&](const StreamObject& stream) { return stream.device == device; });
    runtime.events.RemoveIf([&](const EventObject& event) { return event.device == device; });
  }
  HostWait(done_ns);
  return cudaSuccess;
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::ApiCall;

extern "C" cudaError_t CUDARTAPI cudaGetDeviceCount(int* count) {
  ApiCall call("cudaGetDeviceCount");
  if (count == nullptr) return call.Return(cudaErrorInvalidValue);
  *count = gprof_fake::GetConfig().device_count;
  return call.Return(*count == 0 ? cudaErrorNoDevice : cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaSetDevice(int device) {
  ApiCall call("cudaSetDevice");
  const cudaError_t error = gprof_fake::ValidateDevice(device);
  if (error == cudaSuccess) gprof_fake::SetCurrentDevice(device);
  return call.Return(error);
}

extern "C" cudaError_t CUDARTAPI cudaInitDevice(int device, unsigned int deviceFlags,
                                                unsigned int flags) {
  ApiCall call("cudaInitDevice");
  static_cast<void>(deviceFlags);
  static_cast<void>(flags);
  return call.Return(gprof_fake::ValidateDevice(device));
}

extern "C" cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  ApiCall call("cudaGetDevice");
  if (device == nullptr) return call.Return(cudaErrorInvalidValue);
  if (gprof_fake::GetConfig().device_count == 0) return call.Return(cudaErrorNoDevice);
  *device = gprof_fake::CurrentDevice();
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  ApiCall call("cudaGetDeviceProperties");
  if (prop == nullptr) return call.Return(cudaErrorInvalidValue);
  if (const cudaError_t error = gprof_fake::ValidateDevice(device); error != cudaSuccess) {
    return call.Return(error);
  }
  gprof_fake::FillDeviceProperties(gprof_fake::GetConfig(), device, prop);
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr,
                                                        int device) {
  ApiCall call("cudaDeviceGetAttribute");
  if (value == nullptr) return call.Return(cudaErrorInvalidValue);
  if (const cudaError_t error = gprof_fake::ValidateDevice(device); error != cudaSuccess) {
    return call.Return(error);
  }
  return call.Return(gprof_fake::DeviceAttribute(gprof_fake::GetConfig(), device, attr, value)
                         ? cudaSuccess
                         : cudaErrorInvalidValue);
}

extern "C" cudaError_t CUDARTAPI cudaDeviceSynchronize(void) {
  ApiCall call("cudaDeviceSynchronize");
  return call.Return(gprof_fake::SynchronizeDevice());
}

extern "C" cudaError_t CUDARTAPI cudaDeviceReset(void) {
  ApiCall call("cudaDeviceReset");
  return call.Return(gprof_fake::ResetDevice());
}

extern "C" cudaError_t CUDARTAPI cudaRuntimeGetVersion(int* runtimeVersion) {
  ApiCall call("cudaRuntimeGetVersion");
  if (runtimeVersion == nullptr) return call.Return(cudaErrorInvalidValue);
  *runtimeVersion = gprof_fake::kRuntimeVersion;
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaDriverGetVersion(int* driverVersion) {
  ApiCall call("cudaDriverGetVersion");
  if (driverVersion == nullptr) return call.Return(cudaErrorInvalidValue);
  *driverVersion = gprof_fake::GetConfig().driver_version;
  return call.Return(cudaSuccess);
}

// Profiler control only matters to a profiler that intercepts it; the device does nothing.
extern "C" cudaError_t CUDARTAPI cudaProfilerStart(void) {
  ApiCall call("cudaProfilerStart");
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaProfilerStop(void) {
  ApiCall call("cudaProfilerStop");
  return call.Return(cudaSuccess);
}
