#include "collector/queues/static_tls.h"

namespace gprof {

intptr_t g_static_tls_offset = 0;

namespace {
bool g_found = false;
}

bool find_static_tls() {
#if defined(__x86_64__)
  // The descriptor is two words: the resolver, and its argument (x86-64
  // TLSDESC ABI, glibc sysdeps/x86_64/dl-tlsdesc.S). For a block in static
  // TLS the resolver is _dl_tlsdesc_return and the argument the block's
  // offset from the thread pointer, negative (TLS variant II); for dynamic
  // TLS the argument is a pointer to the loader's own data. Taking the
  // address through the descriptor first resolves it, whatever the binding.
  ThreadState* const t = &this_thread();
  const intptr_t* desc;
  asm("lea gprof_thread_state@TLSDESC(%%rip), %0" : "=r"(desc));
  const intptr_t offset = __atomic_load_n(&desc[1], __ATOMIC_RELAXED);
  char* const tp = static_cast<char*>(__builtin_thread_pointer());
  // A pointer argument is positive (user space); an offset is negative and
  // leads to this very thread's block.
  if (offset < 0 && reinterpret_cast<ThreadState*>(tp + offset) == t) {
    g_static_tls_offset = offset;
    g_found = true;
  }
#else
  g_found = true;  // fast_thread() is this_thread()
#endif
  return g_found;
}

bool static_tls_found() {
  return g_found;
}

}  // namespace gprof
