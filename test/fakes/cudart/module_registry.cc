#include "module_registry.h"

namespace gprof_fake {

void** ModuleRegistry::AddModule() {
  modules_.push_back(std::make_unique<void*>(nullptr));
  return modules_.back().get();
}

bool ModuleRegistry::HasModule(void** handle) const {
  for (const auto& module : modules_) {
    if (module.get() == handle) return true;
  }
  return false;
}

void ModuleRegistry::AddKernel(const void* host_fun, const char* device_name) {
  auto& kernel = kernels_by_host_fun_[host_fun];
  if (kernel == nullptr) kernel = std::make_unique<KernelInfo>();
  kernel->host_fun = host_fun;
  kernel->name = device_name != nullptr ? device_name : "";
  kernels_by_handle_[kernel.get()] = kernel.get();
}

const KernelInfo* ModuleRegistry::FindKernelByHostFun(const void* host_fun) const {
  const auto it = kernels_by_host_fun_.find(host_fun);
  return it == kernels_by_host_fun_.end() ? nullptr : it->second.get();
}

const KernelInfo* ModuleRegistry::FindKernel(const void* handle) const {
  const auto it = kernels_by_handle_.find(handle);
  return it == kernels_by_handle_.end() ? nullptr : it->second;
}

const KernelInfo* ModuleRegistry::NamedKernel(const char* name) {
  auto& kernel = kernels_by_name_[name];
  if (kernel == nullptr) {
    kernel = std::make_unique<KernelInfo>();
    kernel->name = name;
    kernels_by_handle_[kernel.get()] = kernel.get();
  }
  return kernel.get();
}

SymbolInfo& ModuleRegistry::AddSymbol(const void* host_var, size_t size) {
  SymbolInfo& symbol = symbols_[host_var];
  if (symbol.storage == nullptr || symbol.size < size) {
    // Value-initialized: zeroed, like the storage of a variable without initializer.
    symbol_storage_.push_back(std::make_unique<unsigned char[]>(size == 0 ? 1 : size));
    symbol.storage = symbol_storage_.back().get();
  }
  symbol.size = size;
  return symbol;
}

const SymbolInfo* ModuleRegistry::FindSymbol(const void* host_var) const {
  const auto it = symbols_.find(host_var);
  return it == symbols_.end() ? nullptr : &it->second;
}

}  // namespace gprof_fake
