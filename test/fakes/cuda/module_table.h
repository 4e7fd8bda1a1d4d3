// Modules and functions as the fake driver hands them out. The fake parses no images: any file
// or byte image loads, and a module "contains" every function asked of it by name (launching it
// puts a kernel of that name on the timeline). Thread-safe; handles are addresses of objects
// owned here, looked up before use so that a stale handle is an error code, not a crash.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "cuda_driver_abi.h"

namespace gprof_fake_driver {

struct Module {
  bool loaded = true;
};

struct Function {
  const Module* module = nullptr;
  const void* kernel = nullptr;  // the fake runtime's kernel handle (gprof_fake_kernel_by_name)
  const char* name = nullptr;    // owned by the fake runtime, valid for the life of the process
};

class ModuleTable {
 public:
  CUmodule Load();
  // False when `module` is not a loaded module.
  bool Unload(CUmodule module);
  // The function `name` of `module` (the same handle for the same pair), or null when `module`
  // is not a loaded module.
  const Function* GetFunction(CUmodule module, const char* name);
  // Null when `function` was never handed out or its module has been unloaded.
  const Function* Find(CUfunction function);

 private:
  std::mutex mu_;
  // Never erased: an unloaded module stays known, so that its functions fail cleanly.
  std::unordered_map<const void*, std::unique_ptr<Module>> modules_;
  std::map<std::pair<const Module*, std::string>, std::unique_ptr<Function>> functions_;
  std::unordered_map<const void*, const Function*> functions_by_handle_;
};

// Created on first use and never destroyed (atexit code may still call the driver).
ModuleTable& Modules();

}  // namespace gprof_fake_driver
