// Finding the next definition of a hooked symbol (normally libcudart's).
// Resolved on first use and cached: libcudart may be loaded after us
// (PyTorch dlopen()s it), so the constructor cannot do it.
#pragma once

#include <dlfcn.h>

#include <atomic>

namespace gprof::inject {

inline void* resolve_next(std::atomic<void*>& slot, const char* name) {
  void* fn = slot.load(std::memory_order_acquire);
  if (__builtin_expect(fn == nullptr, 0)) {
    fn = dlsym(RTLD_NEXT, name);
    slot.store(fn, std::memory_order_release);
  }
  return fn;
}

}  // namespace gprof::inject

// REAL(cudaMalloc) is the next cudaMalloc, typed as the hook is.
#define REAL(fn)                                                                      \
  ([]() {                                                                             \
    static std::atomic<void*> slot{nullptr};                                          \
    return reinterpret_cast<decltype(&fn)>(::gprof::inject::resolve_next(slot, #fn)); \
  }())
