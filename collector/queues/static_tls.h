// Where the calling thread's ThreadState is, without a call. With TLS
// descriptors (docs/architecture.md §2.5: no initial-exec TLS, the library may be
// dlopen'ed) every lookup is a call through the descriptor. When the loader
// has placed this library's TLS block in the static TLS area (always when it
// is preloaded, and when a dlopen found room), the block sits at the same
// offset from every thread's thread pointer, and the descriptor holds that
// offset: the hot paths then add it to the thread pointer themselves. When it
// did not, they take their general path, which uses this_thread().
#pragma once

#include <cstdint>

#include "collector/queues/thread_state.h"

namespace gprof {

// Valid when static_tls_found() (then the fast-path flags can be set).
extern __attribute__((visibility("hidden"))) intptr_t g_static_tls_offset;

// Reads this library's TLS descriptor once (constructor time). True when the
// block is in static TLS and g_static_tls_offset is its offset.
bool find_static_tls();
bool static_tls_found();

// Only where a fast-path flag (recording.h) said so.
inline ThreadState& fast_thread() {
#if defined(__x86_64__)
  char* tp = static_cast<char*>(__builtin_thread_pointer());
  return *reinterpret_cast<ThreadState*>(tp + g_static_tls_offset);
#else
  return this_thread();
#endif
}

}  // namespace gprof
