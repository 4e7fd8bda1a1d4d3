// Devices, primary contexts and whole-context synchronization. Every device has exactly one
// context, its primary context; the retain count is kept only to reject unbalanced releases.
#include <atomic>

#include "current_context.h"
#include "driver_call.h"

namespace gprof_fake_driver {
namespace {

constexpr int kMaxDevices = 64;
std::atomic<int> g_primary_retains[kMaxDevices];

bool ValidDevice(CUdevice device) {
  return device >= 0 && device < gprof_fake_device_count() && device < kMaxDevices;
}

CUresult ReleasePrimary(CUdevice dev) {
  if (!ValidDevice(dev)) return CUDA_ERROR_INVALID_DEVICE;
  int retains = g_primary_retains[dev].load();
  do {
    if (retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
  } while (!g_primary_retains[dev].compare_exchange_weak(retains, retains - 1));
  return CUDA_SUCCESS;
}

}  // namespace
}  // namespace gprof_fake_driver

using gprof_fake_driver::DriverCall;

extern "C" CUresult CUDAAPI cuDeviceGetCount(int* count) {
  const cuDeviceGetCount_params params{count};
  DriverCall call("cuDeviceGetCount", CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (count == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  *count = gprof_fake_device_count();
  return call.Return(CUDA_SUCCESS);
}

extern "C" CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
  const cuDeviceGet_params params{device, ordinal};
  DriverCall call("cuDeviceGet", CUPTI_DRIVER_TRACE_CBID_cuDeviceGet, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (device == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (!gprof_fake_driver::ValidDevice(ordinal)) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  *device = ordinal;
  return call.Return(CUDA_SUCCESS);
}

extern "C" CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev) {
  const cuDeviceGetName_params params{name, len, dev};
  DriverCall call("cuDeviceGetName", CUPTI_DRIVER_TRACE_CBID_cuDeviceGetName, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_device_name(dev, name, len));
}

extern "C" CUresult CUDAAPI cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  const cuDeviceGetAttribute_params params{pi, attrib, dev};
  DriverCall call("cuDeviceGetAttribute", CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_device_attribute(dev, static_cast<int>(attrib), pi));
}

extern "C" CUresult CUDAAPI cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  const cuDeviceTotalMem_v2_params params{bytes, dev};
  DriverCall call("cuDeviceTotalMem_v2", CUPTI_DRIVER_TRACE_CBID_cuDeviceTotalMem_v2, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (bytes == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  uint64_t total = 0;
  const int result = gprof_fake_device_total_memory(dev, &total);
  if (result == CUDA_SUCCESS && bytes != nullptr) *bytes = static_cast<size_t>(total);
  return call.Return(result);
}

extern "C" CUresult CUDAAPI cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev) {
  const cuDeviceGetPCIBusId_params params{pciBusId, len, dev};
  DriverCall call("cuDeviceGetPCIBusId", CUPTI_DRIVER_TRACE_CBID_cuDeviceGetPCIBusId, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_device_pci_bus_id(dev, pciBusId, len));
}

extern "C" CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  const cuDevicePrimaryCtxRetain_params params{pctx, dev};
  DriverCall call("cuDevicePrimaryCtxRetain", CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRetain,
                  &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (pctx == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (!gprof_fake_driver::ValidDevice(dev)) return call.Return(CUDA_ERROR_INVALID_DEVICE);
  gprof_fake_driver::g_primary_retains[dev].fetch_add(1);
  *pctx = static_cast<CUcontext>(gprof_fake_primary_context(dev));
  return call.Return(CUDA_SUCCESS);
}

extern "C" CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  const cuDevicePrimaryCtxRelease_v2_params params{dev};
  DriverCall call("cuDevicePrimaryCtxRelease_v2",
                  CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease_v2, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_driver::ReleasePrimary(dev));
}

// The pre-CUDA 11 name, still exported by the real library.
extern "C" CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
  const cuDevicePrimaryCtxRelease_params params{dev};
  DriverCall call("cuDevicePrimaryCtxRelease", CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxRelease,
                  &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_driver::ReleasePrimary(dev));
}

extern "C" CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  const cuCtxSetCurrent_params params{ctx};
  DriverCall call("cuCtxSetCurrent", CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  return call.Return(gprof_fake_driver::SetCurrentContext(ctx));
}

extern "C" CUresult CUDAAPI cuCtxGetCurrent(CUcontext* pctx) {
  const cuCtxGetCurrent_params params{pctx};
  DriverCall call("cuCtxGetCurrent", CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (pctx == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  *pctx = gprof_fake_driver::CurrentContext();
  return call.Return(CUDA_SUCCESS);
}

extern "C" CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
  const cuCtxGetDevice_params params{device};
  DriverCall call("cuCtxGetDevice", CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice, &params);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (device == nullptr) return call.Return(CUDA_ERROR_INVALID_VALUE);
  if (gprof_fake_driver::CurrentContext() == nullptr)
    return call.Return(CUDA_ERROR_INVALID_CONTEXT);
  *device = gprof_fake_current_device();
  return call.Return(CUDA_SUCCESS);
}

extern "C" CUresult CUDAAPI cuCtxSynchronize(void) {
  DriverCall call("cuCtxSynchronize", CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize);
  if (const CUresult error = call.RequireInit(); error != CUDA_SUCCESS) return call.Return(error);
  if (gprof_fake_driver::CurrentContext() == nullptr)
    return call.Return(CUDA_ERROR_INVALID_CONTEXT);
  return call.Return(gprof_fake_synchronize_device());
}
