#include "collector/interning/kernel_registry.h"

#include <cstring>

#include "collector/queues/loss_counters.h"

namespace gprof {
namespace {

uint32_t hash_pointer(const void* p) {
  uint64_t x = reinterpret_cast<uintptr_t>(p);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return static_cast<uint32_t>(x);
}

}  // namespace

uint32_t KernelRegistry::insert(Slot* table, const void* key, uint32_t id) {
  uint32_t i = hash_pointer(key) & (kSlots - 1);
  for (uint32_t probes = 0; probes < kSlots; ++probes, i = (i + 1) & (kSlots - 1)) {
    const void* current = table[i].key.load(std::memory_order_acquire);
    if (current == nullptr &&
        table[i].key.compare_exchange_strong(current, key, std::memory_order_acq_rel)) {
      table[i].id.store(id, std::memory_order_release);
      return id;
    }
    if (current == key) {
      // Registered twice (a module loaded again): the newest name wins.
      table[i].id.store(id, std::memory_order_release);
      return id;
    }
  }
  return 0;
}

uint32_t KernelRegistry::find(const Slot* table, const void* key) {
  if (!key) return 0;
  uint32_t i = hash_pointer(key) & (kSlots - 1);
  for (uint32_t probes = 0; probes < kSlots; ++probes, i = (i + 1) & (kSlots - 1)) {
    const void* current = table[i].key.load(std::memory_order_acquire);
    if (current == key) return table[i].id.load(std::memory_order_acquire);
    if (current == nullptr) return 0;
  }
  return 0;
}

const char* KernelRegistry::copy_name(const char* name) {
  size_t n = strnlen(name, 4096);
  size_t at = arena_used_.fetch_add(n + 1, std::memory_order_relaxed);
  if (at + n + 1 > kArenaBytes) return nullptr;
  memcpy(arena_ + at, name, n);
  arena_[at + n] = '\0';
  return arena_ + at;
}

uint32_t KernelRegistry::register_function(const void* host_function, const char* device_name) {
  if (!host_function || !device_name) return 0;
  uint32_t id = reserved_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (id >= kMaxKernels) {
    losses().add(LossReason::kKernelTableFull);
    return 0;
  }
  const char* copy = copy_name(device_name);
  names_[id].store(copy, std::memory_order_relaxed);
  // Each id on its own: the writer skips one still being registered and
  // comes back to it, so no thread ever waits for another (a fork child
  // may inherit an id whose registering thread does not exist in it).
  ready_[id].store(true, std::memory_order_release);
  if (!copy) {
    losses().add(LossReason::kKernelTableFull);
    return 0;
  }
  return insert(by_function_, host_function, id);
}

void KernelRegistry::register_handle(const void* handle, const void* host_function) {
  uint32_t id = find(by_function_, host_function);
  if (handle && id) insert(by_handle_, handle, id);
}

uint32_t KernelRegistry::id_for_function(const void* host_function) const {
  return find(by_function_, host_function);
}

uint32_t KernelRegistry::id_for_handle(const void* handle) const {
  uint32_t id = find(by_handle_, handle);
  // cudaLaunchKernel may also be handed a host stub where a handle is allowed.
  return id ? id : find(by_function_, handle);
}

uint32_t KernelRegistry::reserved() const {
  const uint32_t n = reserved_.load(std::memory_order_acquire) + 1;
  return n < kMaxKernels ? n : kMaxKernels;
}

bool KernelRegistry::ready(uint32_t id) const {
  return id < kMaxKernels && ready_[id].load(std::memory_order_acquire);
}

const char* KernelRegistry::name(uint32_t id) const {
  return id < kMaxKernels ? names_[id].load(std::memory_order_acquire) : nullptr;
}

}  // namespace gprof
