// The fake device as the fake driver and the fake CUPTI reach it (fake_device_api.h): thin
// translations onto the runtime's own machinery, with results in the driver's terms.
#include "fake_device_api.h"

#include <cstdio>
#include <cstring>
#include <mutex>

#include "allocation.h"
#include "config.h"
#include "cuda_abi.h"
#include "device_properties.h"
#include "driver_result.h"
#include "injection.h"
#include "launch.h"
#include "runtime.h"
#include "synchronize.h"
#include "transfer.h"

namespace gprof_fake {
namespace {

// A primary context's handle is the address of its device's byte here: stable, distinct, and
// mapped back by subtraction.
constexpr int kMaxDevices = 64;
unsigned char g_primary_contexts[kMaxDevices];

bool ValidDevice(int device) {
  return device >= 0 && device < GetConfig().device_count && device < kMaxDevices;
}

cudaStream_t AsStream(void* stream) {
  return static_cast<cudaStream_t>(stream);
}

}  // namespace
}  // namespace gprof_fake

using gprof_fake::DriverResult;
using gprof_fake::GetRuntime;

extern "C" int gprof_fake_driver_init(void) {
  gprof_fake::InjectOnce();
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return DriverResult(gprof_fake::RequireDevice(runtime));
}

extern "C" int gprof_fake_driver_initialized(void) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return runtime.context_created && !runtime.forked_child ? 1 : 0;
}

extern "C" int gprof_fake_driver_deinitialized(void) {
  return GetRuntime().unloading.load(std::memory_order_acquire) ? 1 : 0;
}

extern "C" int gprof_fake_driver_version(void) {
  return gprof_fake::GetConfig().driver_version;
}

extern "C" int gprof_fake_device_count(void) {
  return gprof_fake::GetConfig().device_count;
}

extern "C" int gprof_fake_device_name(int device, char* name, int length) {
  if (name == nullptr || length <= 0) return DriverResult(cudaErrorInvalidValue);
  if (!gprof_fake::ValidDevice(device)) return DriverResult(cudaErrorInvalidDevice);
  cudaDeviceProp prop{};
  gprof_fake::FillDeviceProperties(gprof_fake::GetConfig(), device, &prop);
  std::strncpy(name, prop.name, static_cast<size_t>(length) - 1);
  name[length - 1] = '\0';
  return DriverResult(cudaSuccess);
}

extern "C" int gprof_fake_device_attribute(int device, int attribute, int* value) {
  if (value == nullptr) return DriverResult(cudaErrorInvalidValue);
  if (!gprof_fake::ValidDevice(device)) return DriverResult(cudaErrorInvalidDevice);
  return DriverResult(gprof_fake::DeviceAttribute(gprof_fake::GetConfig(), device,
                                                  static_cast<cudaDeviceAttr>(attribute), value)
                          ? cudaSuccess
                          : cudaErrorInvalidValue);
}

extern "C" int gprof_fake_device_total_memory(int device, uint64_t* bytes) {
  if (bytes == nullptr) return DriverResult(cudaErrorInvalidValue);
  if (!gprof_fake::ValidDevice(device)) return DriverResult(cudaErrorInvalidDevice);
  cudaDeviceProp prop{};
  gprof_fake::FillDeviceProperties(gprof_fake::GetConfig(), device, &prop);
  *bytes = prop.totalGlobalMem;
  return DriverResult(cudaSuccess);
}

extern "C" int gprof_fake_device_pci_bus_id(int device, char* id, int length) {
  if (id == nullptr || length <= 0) return DriverResult(cudaErrorInvalidValue);
  if (!gprof_fake::ValidDevice(device)) return DriverResult(cudaErrorInvalidDevice);
  cudaDeviceProp prop{};
  gprof_fake::FillDeviceProperties(gprof_fake::GetConfig(), device, &prop);
  std::snprintf(id, static_cast<size_t>(length), "%04x:%02x:%02x.0", prop.pciDomainID,
                prop.pciBusID, prop.pciDeviceID);
  return DriverResult(cudaSuccess);
}

extern "C" void* gprof_fake_primary_context(int device) {
  return gprof_fake::ValidDevice(device) ? &gprof_fake::g_primary_contexts[device] : nullptr;
}

extern "C" int gprof_fake_context_device(const void* context) {
  const auto* byte = static_cast<const unsigned char*>(context);
  const unsigned char* first = gprof_fake::g_primary_contexts;
  if (byte < first || byte >= first + gprof_fake::kMaxDevices) return -1;
  const int device = static_cast<int>(byte - first);
  return gprof_fake::ValidDevice(device) ? device : -1;
}

extern "C" int gprof_fake_current_device(void) {
  return gprof_fake::CurrentDevice();
}

extern "C" void gprof_fake_set_current_device(int device) {
  gprof_fake::SetCurrentDevice(device);
}

extern "C" const void* gprof_fake_kernel_by_name(const char* name) {
  if (name == nullptr) return nullptr;
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return runtime.modules.NamedKernel(name);
}

extern "C" const char* gprof_fake_kernel_name(const void* kernel) {
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  const gprof_fake::KernelInfo* info = runtime.modules.FindKernel(kernel);
  return info == nullptr ? nullptr : info->name.c_str();
}

extern "C" int gprof_fake_launch(uint32_t correlation_id, const void* kernel,
                                 const uint32_t grid[3], const uint32_t block[3],
                                 uint64_t shared_bytes, void* stream, int per_thread) {
  const gprof_fake::KernelInfo* info = nullptr;
  {
    auto& runtime = GetRuntime();
    std::lock_guard lock(runtime.mu);
    info = runtime.modules.FindKernel(kernel);
  }
  return DriverResult(gprof_fake::IssueLaunch(
      correlation_id, info, dim3(grid[0], grid[1], grid[2]), dim3(block[0], block[1], block[2]),
      static_cast<size_t>(shared_bytes), gprof_fake::AsStream(stream), per_thread != 0));
}

extern "C" int gprof_fake_malloc(void** ptr, uint64_t bytes) {
  return DriverResult(
      gprof_fake::AllocateLocked(ptr, static_cast<size_t>(bytes), GPROF_FAKE_MEMORY_DEVICE));
}

extern "C" int gprof_fake_free(void* ptr) {
  return DriverResult(gprof_fake::FreeAndSynchronize(ptr, gprof_fake::kDeviceKinds));
}

extern "C" int gprof_fake_memcpy(uint32_t correlation_id, void* dst, const void* src,
                                 uint64_t bytes, int kind, int per_thread) {
  if (kind < GPROF_FAKE_COPY_HTOH || kind > GPROF_FAKE_COPY_DTOD) {
    return DriverResult(cudaErrorInvalidValue);
  }
  gprof_fake::CopyArgs args;
  args.dst = dst;
  args.src = src;
  args.width = static_cast<size_t>(bytes);
  args.dst_pitch = args.width;
  args.src_pitch = args.width;
  // GprofFakeCopyKind's four directions have cudaMemcpyKind's values.
  args.kind = static_cast<cudaMemcpyKind>(kind);
  return DriverResult(gprof_fake::Copy(correlation_id, args, nullptr, per_thread != 0,
                                       gprof_fake::HostBlocking::kSync));
}

extern "C" int gprof_fake_memset_d32(uint32_t correlation_id, void* dst, uint32_t value,
                                     uint64_t count, int per_thread) {
  gprof_fake::SetArgs args;
  args.dst = dst;
  args.value = static_cast<int>(value);
  args.width = static_cast<size_t>(count) * sizeof(uint32_t);
  args.pitch = args.width;
  args.element_bytes = sizeof(uint32_t);
  return DriverResult(gprof_fake::Set(correlation_id, args, nullptr, per_thread != 0,
                                      gprof_fake::HostBlocking::kSync));
}

extern "C" int gprof_fake_synchronize_device(void) {
  return DriverResult(gprof_fake::SynchronizeDevice());
}

extern "C" int gprof_fake_synchronize_stream(void* stream, int per_thread) {
  return DriverResult(gprof_fake::SynchronizeStream(gprof_fake::AsStream(stream), per_thread != 0));
}

extern "C" int gprof_fake_stream_id(int device, void* stream, int per_thread, uint32_t* id) {
  if (id == nullptr) return DriverResult(cudaErrorInvalidValue);
  auto& runtime = GetRuntime();
  std::lock_guard lock(runtime.mu);
  return DriverResult(gprof_fake::StreamIdOnDevice(runtime, device, gprof_fake::AsStream(stream),
                                                   per_thread != 0, id));
}
