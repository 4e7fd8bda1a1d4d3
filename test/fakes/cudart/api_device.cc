// Devices, versions, whole-device synchronization and reset, profiler control.
#include <mutex>

#include "api_call.h"
#include "config.h"
#include "cuda_abi.h"
#include "device_properties.h"
#include "issue.h"
#include "runtime.h"
#include "synchronize.h"

namespace gprof_fake {
namespace {

// 12080 in the libcudart.so.12 build (test/fakes/cudart12).
#ifdef GPROF_FAKE_RUNTIME_VERSION
constexpr int kRuntimeVersion = GPROF_FAKE_RUNTIME_VERSION;
#else
constexpr int kRuntimeVersion = 13000;
#endif

cudaError_t ValidateDevice(int device) {
  const Config& config = GetConfig();
  if (config.device_count == 0) return cudaErrorNoDevice;
  return device >= 0 && device < config.device_count ? cudaSuccess : cudaErrorInvalidDevice;
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
  const cudaGetDeviceCount_v3020_params params{count};
  ApiCall call("cudaGetDeviceCount", CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020, &params);
  if (count == nullptr) return call.Return(cudaErrorInvalidValue);
  *count = gprof_fake::GetConfig().device_count;
  return call.Return(*count == 0 ? cudaErrorNoDevice : cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaSetDevice(int device) {
  const cudaSetDevice_v3020_params params{device};
  ApiCall call("cudaSetDevice", CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020, &params);
  const cudaError_t error = gprof_fake::ValidateDevice(device);
  if (error == cudaSuccess) gprof_fake::SetCurrentDevice(device);
  return call.Return(error);
}

extern "C" cudaError_t CUDARTAPI cudaInitDevice(int device, unsigned int deviceFlags,
                                                unsigned int flags) {
  const cudaInitDevice_v12000_params params{device, deviceFlags, flags};
  ApiCall call("cudaInitDevice", CUPTI_RUNTIME_TRACE_CBID_cudaInitDevice_v12000, &params);
  static_cast<void>(deviceFlags);
  static_cast<void>(flags);
  return call.Return(gprof_fake::ValidateDevice(device));
}

extern "C" cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  const cudaGetDevice_v3020_params params{device};
  ApiCall call("cudaGetDevice", CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, &params);
  if (device == nullptr) return call.Return(cudaErrorInvalidValue);
  if (gprof_fake::GetConfig().device_count == 0) return call.Return(cudaErrorNoDevice);
  *device = gprof_fake::CurrentDevice();
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  const cudaGetDeviceProperties_v12000_params params{prop, device};
  ApiCall call("cudaGetDeviceProperties", CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceProperties_v12000,
               &params);
  if (prop == nullptr) return call.Return(cudaErrorInvalidValue);
  if (const cudaError_t error = gprof_fake::ValidateDevice(device); error != cudaSuccess) {
    return call.Return(error);
  }
  gprof_fake::FillDeviceProperties(gprof_fake::GetConfig(), device, prop);
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr,
                                                        int device) {
  const cudaDeviceGetAttribute_v5000_params params{value, attr, device};
  ApiCall call("cudaDeviceGetAttribute", CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
               &params);
  if (value == nullptr) return call.Return(cudaErrorInvalidValue);
  if (const cudaError_t error = gprof_fake::ValidateDevice(device); error != cudaSuccess) {
    return call.Return(error);
  }
  return call.Return(gprof_fake::DeviceAttribute(gprof_fake::GetConfig(), device, attr, value)
                         ? cudaSuccess
                         : cudaErrorInvalidValue);
}

extern "C" cudaError_t CUDARTAPI cudaDeviceSynchronize(void) {
  ApiCall call("cudaDeviceSynchronize", CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
  // The real runtime waits in the driver; CUPTI reports that call nested inside this one.
  ApiCall driver(ApiCall::NestedDriver{}, "cuCtxSynchronize",
                 CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize);
  return call.Return(driver.Return(gprof_fake::SynchronizeDevice()));
}

extern "C" cudaError_t CUDARTAPI cudaDeviceReset(void) {
  ApiCall call("cudaDeviceReset", CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
  return call.Return(gprof_fake::ResetDevice());
}

extern "C" cudaError_t CUDARTAPI cudaRuntimeGetVersion(int* runtimeVersion) {
  const cudaRuntimeGetVersion_v3020_params params{runtimeVersion};
  ApiCall call("cudaRuntimeGetVersion", CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
               &params);
  if (runtimeVersion == nullptr) return call.Return(cudaErrorInvalidValue);
  *runtimeVersion = gprof_fake::kRuntimeVersion;
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaDriverGetVersion(int* driverVersion) {
  const cudaDriverGetVersion_v3020_params params{driverVersion};
  ApiCall call("cudaDriverGetVersion", CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,
               &params);
  if (driverVersion == nullptr) return call.Return(cudaErrorInvalidValue);
  *driverVersion = gprof_fake::GetConfig().driver_version;
  return call.Return(cudaSuccess);
}

// Profiler control only matters to a profiler that intercepts it; the device does nothing.
extern "C" cudaError_t CUDARTAPI cudaProfilerStart(void) {
  ApiCall call("cudaProfilerStart", CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
  return call.Return(cudaSuccess);
}

extern "C" cudaError_t CUDARTAPI cudaProfilerStop(void) {
  ApiCall call("cudaProfilerStop", CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
  return call.Return(cudaSuccess);
}
