// Finding the next definition of a hooked symbol (normally libcudart's).
// Resolved on first use and cached: libcudart may be loaded after us
// (PyTorch dlopen()s it), so the constructor cannot do it.
#pragma once

#include <atomic>
#include <cstdint>

namespace gprof::inject {

// Out of line (real_function.cc): the lookup itself, or null. Not on the hot
// path: it takes the loader's lock. `major` (12, 13) asks for the definition
// of that libcudart's version node first (a process may hold two runtimes);
// 0, or none found, takes any.
void* find_real(const char* name, int major = 0);

// A slot holds the function, 0 before the first lookup, or a failed lookup's
// CLOCK_MONOTONIC millisecond with the top bit set (user-space addresses never
// have it): a missing runtime is looked for again at most every kRetryMs, not
// on every call.
inline constexpr uint64_t kMissingTag = 1ull << 63;
inline constexpr uint64_t kRetryMs = 100;
void* resolve_slow(std::atomic<uint64_t>& slot, const char* name, int major);

inline void* resolve_next(std::atomic<uint64_t>& slot, const char* name, int major) {
  const uint64_t value = slot.load(std::memory_order_acquire);
  if (__builtin_expect(static_cast<int64_t>(value) <= 0, 0)) return resolve_slow(slot, name, major);
  return reinterpret_cast<void*>(value);
}

}  // namespace gprof::inject

// REAL(cudaMalloc) is the next cudaMalloc, typed as the hook is: the one of
// the libcudart major this hook build serves (inject/hook_name.h).
#ifdef GPROF_CUDART_MAJOR
#define GPROF_REAL_MAJOR GPROF_CUDART_MAJOR
#else
#define GPROF_REAL_MAJOR 0
#endif
#define REAL(fn)                                                     \
  ([]() {                                                            \
    static std::atomic<uint64_t> slot{0};                            \
    return reinterpret_cast<decltype(&fn)>(                          \
        ::gprof::inject::resolve_next(slot, #fn, GPROF_REAL_MAJOR)); \
  }())
