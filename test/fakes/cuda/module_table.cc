#include "module_table.h"

#include "../cudart/fake_device_api.h"

namespace gprof_fake_driver {

CUmodule ModuleTable::Load() {
  std::lock_guard lock(mu_);
  auto module = std::make_unique<Module>();
  Module* raw = module.get();
  modules_[raw] = std::move(module);
  return reinterpret_cast<CUmodule>(raw);
}

bool ModuleTable::Unload(CUmodule module) {
  std::lock_guard lock(mu_);
  const auto it = modules_.find(module);
  if (it == modules_.end() || !it->second->loaded) return false;
  it->second->loaded = false;
  return true;
}

const Function* ModuleTable::GetFunction(CUmodule module, const char* name) {
  std::lock_guard lock(mu_);
  const auto it = modules_.find(module);
  if (it == modules_.end() || !it->second->loaded) return nullptr;
  auto& function = functions_[{it->second.get(), name}];
  if (function == nullptr) {
    function = std::make_unique<Function>();
    function->module = it->second.get();
    function->kernel = gprof_fake_kernel_by_name(name);
    function->name = gprof_fake_kernel_name(function->kernel);
    functions_by_handle_[function.get()] = function.get();
  }
  return function.get();
}

const Function* ModuleTable::Find(CUfunction function) {
  std::lock_guard lock(mu_);
  const auto it = functions_by_handle_.find(function);
  if (it == functions_by_handle_.end() || !it->second->module->loaded) return nullptr;
  return it->second;
}

ModuleTable& Modules() {
  static ModuleTable* table = new ModuleTable;
  return *table;
}

}  // namespace gprof_fake_driver
