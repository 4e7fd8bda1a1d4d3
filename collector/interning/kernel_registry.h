// Kernel names become small integer ids once, at registration
// (__cudaRegisterFunction) or first sight. Launches carry the host stub or
// handle they were given; the writer looks the id up, off the hot path.
// Lock-free: registration can race with launches on other threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gprof {

class KernelRegistry {
 public:
  static constexpr uint32_t kMaxKernels = 1u << 17;  // libtorch_cuda registers tens of thousands

  // Host stub → device function name. Returns the id (0 when the table is full).
  uint32_t register_function(const void* host_function, const char* device_name);
  // cudaKernel_t handle (from __cudaGetKernel) → the id of its host stub.
  void register_handle(const void* handle, const void* host_function);

  uint32_t id_for_function(const void* host_function) const;
  uint32_t id_for_handle(const void* handle) const;

  // Writer side: ids [1, reserved()) exist or are being registered; ready()
  // once an id's name is stored (or known to be missing).
  uint32_t reserved() const;
  bool ready(uint32_t id) const;
  const char* name(uint32_t id) const;

 private:
  struct Slot {
    std::atomic<const void*> key{nullptr};
    std::atomic<uint32_t> id{0};
  };
  static constexpr uint32_t kSlots = kMaxKernels * 2;

  static uint32_t insert(Slot* table, const void* key, uint32_t id);
  static uint32_t find(const Slot* table, const void* key);
  const char* copy_name(const char* name);

  Slot by_function_[kSlots];
  Slot by_handle_[kSlots];
  std::atomic<const char*> names_[kMaxKernels] = {};
  std::atomic<bool> ready_[kMaxKernels] = {};
  // Ids handed out; ids start at 1. All state is zero-initialized so the
  // registry lives in .bss (touched only as used), not in the file.
  std::atomic<uint32_t> reserved_{0};
  // Names are copied: a module may be unloaded before the writer reads them.
  static constexpr size_t kArenaBytes = 16u << 20;
  char arena_[kArenaBytes] = {};
  std::atomic<size_t> arena_used_{0};
};

}  // namespace gprof
