#include "collector/cupti_library.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>

namespace gprof {
namespace {

void* open_library(char* why, size_t why_size) {
  static const char* const kNames[] = {"libcupti.so.13", "libcupti.so"};
  for (const char* name : kNames)
    if (void* h = dlopen(name, RTLD_NOW | RTLD_NOLOAD)) return h;
  if (const char* path = secure_getenv("GPROF_CUPTI_LIBRARY"); path && *path) {
    if (void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) return h;
    snprintf(why, why_size, "GPROF_CUPTI_LIBRARY=%s cannot be loaded: %s", path, dlerror());
    return nullptr;
  }
  if (void* h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL)) return h;
  char candidate[512];
  const char* home = secure_getenv("CUDA_HOME");
  const char* const kPlaces[] = {"%s/lib64/libcupti.so.13", "%s/extras/CUPTI/lib64/libcupti.so.13"};
  for (const char* root : {home, "/usr/local/cuda"}) {
    if (root == nullptr || *root == '\0') continue;
    for (const char* place : kPlaces) {
      snprintf(candidate, sizeof candidate, place, root);
      if (void* h = dlopen(candidate, RTLD_NOW | RTLD_LOCAL)) return h;
    }
  }
  snprintf(why, why_size,
           "libcupti.so.13 not found (set GPROF_CUPTI_LIBRARY, or add the CUDA Toolkit's lib64 "
           "to LD_LIBRARY_PATH)");
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

bool cupti_version_supported(uint32_t version) {
  return version >= 130000 && version < 140000;
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
