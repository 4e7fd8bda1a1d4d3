// What nvcc-generated code registers at startup: kernels (host stub -> device name) and
// __device__ / __constant__ / __managed__ variables (host shadow -> fake device storage).
// Not thread-safe: the runtime's lock guards it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace gprof_fake {

// The object behind a cudaKernel_t handle. Never freed, so handles cached in the static locals
// of launch stubs stay valid until the process ends.
struct KernelInfo {
  const void* host_fun = nullptr;
  std::string name;  // mangled, as CUPTI reports it
};

struct SymbolInfo {
  void* storage = nullptr;
  size_t size = 0;
};

class ModuleRegistry {
 public:
  // The handle __cudaRegisterFatBinary returns: the address of a slot the stubs keep.
  void** AddModule();
  bool HasModule(void** handle) const;

  void AddKernel(const void* host_fun, const char* device_name);
  const KernelInfo* FindKernelByHostFun(const void* host_fun) const;
  // Validates a cudaKernel_t handed back by the program (or a CUfunction handed to the fake
  // driver).
  const KernelInfo* FindKernel(const void* handle) const;
  // A kernel the fake driver knows only by name (cuModuleGetFunction): one record per name.
  const KernelInfo* NamedKernel(const char* name);

  // Zeroed storage of `size` bytes for the variable whose host shadow is `host_var`.
  SymbolInfo& AddSymbol(const void* host_var, size_t size);
  const SymbolInfo* FindSymbol(const void* host_var) const;

 private:
  std::vector<std::unique_ptr<void*>> modules_;
  std::unordered_map<const void*, std::unique_ptr<KernelInfo>> kernels_by_host_fun_;
  std::unordered_map<const void*, const KernelInfo*> kernels_by_handle_;
  std::unordered_map<std::string, std::unique_ptr<KernelInfo>> kernels_by_name_;
  std::unordered_map<const void*, SymbolInfo> symbols_;
  std::vector<std::unique_ptr<unsigned char[]>> symbol_storage_;
};

}  // namespace gprof_fake
