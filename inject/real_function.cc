// Where the real runtime is (docs/architecture.md §3.1). dlsym(RTLD_NEXT) searches the
// global scope only; a cudart that arrived as the dependency of an RTLD_LOCAL
// dlopen (a Python extension module, onnxruntime's CUDA provider) is not in
// it, yet the extension's calls bind to our hooks, which are global. So a
// failed RTLD_NEXT lookup asks the runtime itself: by soname
// (dlopen(RTLD_NOLOAD), which finds a loaded object whatever its scope), then
// by scanning every loaded object whose file name starts with "libcudart".
#include "inject/real_function.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>

#include "collector/queues/clock.h"

namespace gprof::inject {
namespace {

// Our own definitions are never the real ones.
bool is_ours(void* fn) {
  Dl_info mine{}, theirs{};
  return dladdr(reinterpret_cast<void*>(&find_real), &mine) != 0 && dladdr(fn, &theirs) != 0 &&
         mine.dli_fbase == theirs.dli_fbase;
}

// `version` null: any definition.
void* lookup_in(const char* object, const char* name, const char* version) {
  void* handle = dlopen(object, RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) return nullptr;
  void* fn = version ? dlvsym(handle, name, version) : dlsym(handle, name);
  dlclose(handle);  // RTLD_NOLOAD took a reference
  return fn && !is_ours(fn) ? fn : nullptr;
}

// dl_iterate_phdr holds the loader's write lock while it calls back, and
// dlopen/dladdr take the loader's main lock: a dlopen on another thread takes
// them in the other order. So the callback only copies paths; the lookups
// come after dl_iterate_phdr has returned.
struct Scan {
  static constexpr int kMax = 4;
  char paths[kMax][512];
  int count = 0;
};

int scan_object(dl_phdr_info* info, size_t, void* data) {
  auto* scan = static_cast<Scan*>(data);
  const char* path = info->dlpi_name;
  if (!path || !*path) return 0;
  const char* base = std::strrchr(path, '/');
  base = base ? base + 1 : path;
  if (std::strncmp(base, "libcudart", 9) != 0 || std::strlen(path) >= sizeof scan->paths[0])
    return 0;
  std::memcpy(scan->paths[scan->count], path, std::strlen(path) + 1);
  return ++scan->count == Scan::kMax;
}

// One pass: the definitions of `version` (libcudart's node name), or any when
// it is null.
void* find_in_scope(const char* name, const char* version) {
  if (void* fn = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name)) return fn;
  for (const char* soname : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"})
    if (void* fn = lookup_in(soname, name, version)) return fn;
  Scan scan;
  dl_iterate_phdr(scan_object, &scan);
  for (int i = 0; i < scan.count; ++i)
    if (void* fn = lookup_in(scan.paths[i], name, version)) return fn;
  return nullptr;
}

}  // namespace

void* find_real(const char* name, int major) {
  if (major == 12 || major == 13) {
    if (void* fn = find_in_scope(name, major == 12 ? "libcudart.so.12" : "libcudart.so.13"))
      return fn;
  }
  // An unversioned runtime (a build of one's own), or a caller of the default
  // hooks in a process without cudart 13.
  return find_in_scope(name, nullptr);
}

void* resolve_slow(std::atomic<uint64_t>& slot, const char* name, int major) {
  const uint64_t value = slot.load(std::memory_order_acquire);
  const uint64_t now_ms = clock_ns() / 1000000;
  if ((value & kMissingTag) && now_ms - (value & ~kMissingTag) < kRetryMs) return nullptr;
  void* fn = find_real(name, major);
  slot.store(fn ? reinterpret_cast<uintptr_t>(fn) : kMissingTag | now_ms,
             std::memory_order_release);
  return fn;
}

}  // namespace gprof::inject
