#include "collector/gpu/driver_probe.h"

#include <dlfcn.h>

namespace gprof {
namespace {

// cuda.h: CUdevice_attribute values, and the driver entry points used here
// (CUresult is an int-sized enum, CUdevice an int; 0 is CUDA_SUCCESS).
constexpr int kAttrMultiprocessorCount = 16;     // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
constexpr int kAttrComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

struct Driver {
  void* handle = nullptr;
  int (*device_get_count)(int*) = nullptr;
  int (*device_get)(int*, int) = nullptr;
  int (*device_get_name)(char*, int, int) = nullptr;
  int (*device_get_attribute)(int*, int, int) = nullptr;
  int (*device_total_mem)(size_t*, int) = nullptr;  // cuDeviceTotalMem_v2
  int (*device_get_pci_bus_id)(char*, int, int) = nullptr;
  int (*driver_get_version)(int*) = nullptr;

  Driver() {
    handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) return;
    find(device_get_count, "cuDeviceGetCount");
    find(device_get, "cuDeviceGet");
    find(device_get_name, "cuDeviceGetName");
    find(device_get_attribute, "cuDeviceGetAttribute");
    find(device_total_mem, "cuDeviceTotalMem_v2");
    find(device_get_pci_bus_id, "cuDeviceGetPCIBusId");
    find(driver_get_version, "cuDriverGetVersion");
  }
  ~Driver() {
    if (handle) dlclose(handle);  // RTLD_NOLOAD took a reference
  }
  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  template <typename F>
  void find(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(handle, name));
  }
};

void printable(char* text, size_t size) {
  for (size_t i = 0; i < size && text[i]; ++i)
    if (static_cast<unsigned char>(text[i]) < 0x20 || static_cast<unsigned char>(text[i]) > 0x7e)
      text[i] = '?';
  text[size - 1] = '\0';
}

}  // namespace

bool cuda_running() {
  Driver driver;
  int devices = 0;
  return driver.device_get_count && driver.device_get_count(&devices) == 0;
}

size_t query_devices(DeviceInfo* out, size_t max) {
  Driver driver;
  int count = 0;
  if (!driver.device_get_count || !driver.device_get || driver.device_get_count(&count) != 0)
    return 0;
  size_t n = 0;
  for (int ordinal = 0; ordinal < count && n < max; ++ordinal) {
    int device = 0;
    if (driver.device_get(&device, ordinal) != 0) continue;
    DeviceInfo& d = out[n++];
    d = DeviceInfo{};
    d.ordinal = static_cast<uint32_t>(ordinal);
    if (driver.device_get_name &&
        driver.device_get_name(d.name, static_cast<int>(sizeof d.name), device) != 0)
      d.name[0] = '\0';
    printable(d.name, sizeof d.name);
    int value = 0;
    if (driver.device_get_attribute) {
      if (driver.device_get_attribute(&value, kAttrComputeCapabilityMajor, device) == 0)
        d.compute_major = static_cast<uint32_t>(value);
      if (driver.device_get_attribute(&value, kAttrComputeCapabilityMinor, device) == 0)
        d.compute_minor = static_cast<uint32_t>(value);
      if (driver.device_get_attribute(&value, kAttrMultiprocessorCount, device) == 0)
        d.sm_count = static_cast<uint32_t>(value);
    }
    size_t bytes = 0;
    if (driver.device_total_mem && driver.device_total_mem(&bytes, device) == 0)
      d.total_memory = bytes;
    if (driver.device_get_pci_bus_id &&
        driver.device_get_pci_bus_id(d.pci_bus_id, static_cast<int>(sizeof d.pci_bus_id), device) !=
            0)
      d.pci_bus_id[0] = '\0';
    printable(d.pci_bus_id, sizeof d.pci_bus_id);
  }
  return n;
}

int32_t driver_version() {
  Driver driver;
  int version = 0;
  if (!driver.driver_get_version || driver.driver_get_version(&version) != 0) return 0;
  return version;
}

}  // namespace gprof
