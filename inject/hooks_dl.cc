// dlclose: the one way a loaded object's read-only text goes away. The NVTX
// pointer cache trusts pointers into read-only segments without comparing
// their text (collector/interning/readonly_text.h); they are forgotten around every
// dlclose, so that an object mapped later at the same address is never taken
// for the old one. dlopen is not hooked: it resolves $ORIGIN and RUNPATH from
// its caller's address, which a hook would change.
#include <dlfcn.h>

#include <atomic>

#include "collector/interning/readonly_text.h"
#include "collector/process/recorder.h"

namespace gprof::inject {
namespace {

using DlcloseFn = int (*)(void*);
std::atomic<DlcloseFn> g_real_dlclose{nullptr};

DlcloseFn real_dlclose() {
  DlcloseFn fn = g_real_dlclose.load(std::memory_order_acquire);
  if (!fn) {
    fn = reinterpret_cast<DlcloseFn>(dlsym(RTLD_NEXT, "dlclose"));
    g_real_dlclose.store(fn, std::memory_order_release);
  }
  return fn;
}

}  // namespace

// Constructor time: whether the program's dlclose is this one (not when the
// driver dlopen()ed us: the program's calls then bind to libc's).
void check_dlclose_hook();

}  // namespace gprof::inject

// Exported with glibc's versions of dlclose (the version script declares the
// nodes): a program's versioned reference binds only to a definition of its
// version. The plain name stays local; the rest of the shim is hidden.
#if defined(__x86_64__)
#define GPROF_DLCLOSE_BASE "dlclose@GLIBC_2.2.5"
#elif defined(__aarch64__)
#define GPROF_DLCLOSE_BASE "dlclose@GLIBC_2.17"
#endif
extern "C" __attribute__((visibility("default"), symver(GPROF_DLCLOSE_BASE),
                          symver("dlclose@@GLIBC_2.34"))) int
gprof_dlclose(void* handle) {
  using namespace gprof;
  const inject::DlcloseFn real = inject::real_dlclose();
  if (!real) return -1;
  string_table().forget_readonly();
  const int result = real(handle);
  string_table().forget_readonly();  // anything cached while it unloaded
  return result;
}

void gprof::inject::check_dlclose_hook() {
  set_dlclose_hooked(dlsym(RTLD_DEFAULT, "dlclose") == reinterpret_cast<void*>(&gprof_dlclose));
}
