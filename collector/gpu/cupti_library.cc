#include "collector/gpu/cupti_library.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace gprof {
namespace {

// The libcudart major the process runs (its CUPTI must match): 13 when
// libcudart.so.13 is loaded, 12 when only libcudart.so.12 is, else 13. Sets
// `cudart_dir` to the loaded runtime's directory, where pip wheels keep CUPTI
// nearby, or to "" when unknown.
int runtime_major(char* cudart_dir, size_t size) {
  cudart_dir[0] = '\0';
  for (int major : {13, 12}) {
    char soname[32];
    snprintf(soname, sizeof soname, "libcudart.so.%d", major);
    void* h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    link_map* map = nullptr;
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) {
      snprintf(cudart_dir, size, "%s", map->l_name);
      if (char* slash = strrchr(cudart_dir, '/'))
        *slash = '\0';
      else
        cudart_dir[0] = '\0';
    }
    dlclose(h);  // RTLD_NOLOAD took a reference
    return major;
  }
  return 13;
}

void* open_major(int major, const char* cudart_dir) {
  char name[32];
  snprintf(name, sizeof name, "libcupti.so.%d", major);
  if (void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return h;
  char candidate[1024];
  // Next to the runtime, and where NVIDIA's pip wheels put CUPTI beside it
  // (site-packages/nvidia/cuda_runtime/lib, site-packages/nvidia/cuda_cupti/lib).
  if (cudart_dir[0]) {
    for (const char* place : {"%s/%s", "%s/../../cuda_cupti/lib/%s"}) {
      snprintf(candidate, sizeof candidate, place, cudart_dir, name);
      if (void* h = dlopen(candidate, RTLD_NOW | RTLD_LOCAL)) return h;
    }
  }
  const char* home = secure_getenv("CUDA_HOME");
  for (const char* root : {home, "/usr/local/cuda"}) {
    if (root == nullptr || *root == '\0') continue;
    for (const char* place : {"%s/lib64/%s", "%s/extras/CUPTI/lib64/%s"}) {
      snprintf(candidate, sizeof candidate, place, root, name);
      if (void* h = dlopen(candidate, RTLD_NOW | RTLD_LOCAL)) return h;
    }
  }
  return nullptr;
}

// One CUPTI per process: the one already loaded (a tool that came first,
// torch.profiler's kineto), else the one of the runtime's major.
void* open_library(char* why, size_t why_size) {
  static const char* const kNames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};
  for (const char* name : kNames)
    if (void* h = dlopen(name, RTLD_NOW | RTLD_NOLOAD)) return h;
  if (const char* path = secure_getenv("GPROF_CUPTI_LIBRARY"); path && *path) {
    if (void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) return h;
    snprintf(why, why_size, "GPROF_CUPTI_LIBRARY=%s cannot be loaded: %s", path, dlerror());
    return nullptr;
  }
  char cudart_dir[512];
  const int major = runtime_major(cudart_dir, sizeof cudart_dir);
  if (void* h = open_major(major, cudart_dir)) return h;
  // The other major's CUPTI still reads a newer driver's work; `info` names the
  // library it loaded.
  if (void* h = open_major(major == 13 ? 12 : 13, cudart_dir)) return h;
  snprintf(why, why_size,
           "libcupti.so.%d not found for the process's CUDA %d runtime (set GPROF_CUPTI_LIBRARY, "
           "or add the CUDA Toolkit's lib64 to LD_LIBRARY_PATH)",
           major, major);
  return nullptr;
}

template <typename F>
bool bind(void* handle, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  return out != nullptr;
}

}  // namespace

const char* CuptiLibrary::describe(CUptiResult result) const {
  const char* text = nullptr;
  if (GetResultString && GetResultString(result, &text) == CUPTI_SUCCESS && text) return text;
  static thread_local char number[32];
  snprintf(number, sizeof number, "CUPTI error %d", static_cast<int>(result));
  return number;
}

bool cupti_version_supported(uint32_t version, const char* path) {
  if (version >= 130000 && version < 140000) return true;
  // CUPTI 12.0-12.9 report API versions 18-28 (12.0 and CUDA 11.8 both say
  // 18: the library's name tells them apart). Every field gprof reads from
  // their records (Kernel9, Memcpy5, Synchronization) sits where CUDA 13's
  // Kernel10, Memcpy6 and Synchronization2 have it; records are stepped
  // through with cuptiActivityGetNextRecord, never by gprof's sizeof.
  return version >= 18 && version < 130000 && path && strstr(path, "libcupti.so.12");
}

bool load_cupti(CuptiLibrary& lib, char* why, size_t why_size) {
  lib.handle = open_library(why, why_size);
  if (!lib.handle) return false;
  void* h = lib.handle;
  const char* missing = nullptr;
#define GPROF_BIND(field, symbol) \
  if (!missing && !bind(h, symbol, lib.field)) missing = symbol;
  GPROF_BIND(GetVersion, "cuptiGetVersion")
  GPROF_BIND(GetResultString, "cuptiGetResultString")
  GPROF_BIND(GetTimestamp, "cuptiGetTimestamp")
  GPROF_BIND(Subscribe, "cuptiSubscribe")
  GPROF_BIND(Unsubscribe, "cuptiUnsubscribe")
  GPROF_BIND(EnableCallback, "cuptiEnableCallback")
  GPROF_BIND(ActivityEnable, "cuptiActivityEnable")
  GPROF_BIND(ActivityDisable, "cuptiActivityDisable")
  GPROF_BIND(ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks")
  GPROF_BIND(ActivityRegisterTimestampCallback, "cuptiActivityRegisterTimestampCallback")
  GPROF_BIND(ActivityFlushAll, "cuptiActivityFlushAll")
  GPROF_BIND(ActivityGetNextRecord, "cuptiActivityGetNextRecord")
  GPROF_BIND(ActivityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords")
  GPROF_BIND(ActivityPushExternalCorrelationId, "cuptiActivityPushExternalCorrelationId")
  GPROF_BIND(ActivityPopExternalCorrelationId, "cuptiActivityPopExternalCorrelationId")
#undef GPROF_BIND
  bind(h, "cuptiSubscribe_v2", lib.SubscribeV2);
  bind(h, "cuptiActivitySetAttribute", lib.ActivitySetAttribute);
  link_map* map = nullptr;
  if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
    snprintf(lib.path, sizeof lib.path, "%s", map->l_name);
  if (missing) {
    snprintf(why, why_size, "%s lacks %s", lib.path[0] ? lib.path : "libcupti", missing);
    return false;
  }
  if (lib.GetVersion(&lib.version) != CUPTI_SUCCESS) lib.version = 0;
  return true;
}

}  // namespace gprof
