// libcupti_call_log.so: a preload that logs the CUPTI calls another tool makes (kineto inside
// torch.profiler) with their return codes, one line each on stderr ("cupti_call_log: ..."), and
// forwards them to the real CUPTI. scripts/gpu-probe runs torch.profiler under it, alone and in
// front of libgprof.so (LD_PRELOAD=libcupti_call_log.so:libgprof.so), so that the order a real
// kineto calls CUPTI in, and what it is answered, is observed rather than read from its source.
// Unversioned definitions: they interpose the versioned references (cuptiSubscribe@libcupti.so.13)
// of every library in the process (docs/architecture.md §3.1). Test tool only: it is never in
// the shim.
#include <cupti.h>
#include <dlfcn.h>

#include <cstdio>
#include <initializer_list>

namespace {

void* real(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  for (const char* soname : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"}) {
    if (void* h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD)) {
      void* f = dlsym(h, name);
      dlclose(h);
      if (f) return f;
    }
  }
  return nullptr;
}

CUptiResult logged(const char* what, long arg, CUptiResult r) {
  std::fprintf(stderr, "cupti_call_log: %s(%ld) = %d\n", what, arg, static_cast<int>(r));
  return r;
}

}  // namespace

#define FORWARD(name, ...)                                          \
  reinterpret_cast<decltype(&name)>(real(#name))                    \
      ? reinterpret_cast<decltype(&name)>(real(#name))(__VA_ARGS__) \
      : CUPTI_ERROR_NOT_INITIALIZED

extern "C" {
__attribute__((visibility("default"))) CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* s,
                                                                  CUpti_CallbackFunc f, void* u) {
  return logged("cuptiSubscribe", 0, FORWARD(cuptiSubscribe, s, f, u));
}
__attribute__((visibility("default"))) CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle* s,
                                                                     CUpti_CallbackFunc f, void* u,
                                                                     CUpti_SubscriberParams* p) {
  return logged("cuptiSubscribe_v2", 0, FORWARD(cuptiSubscribe_v2, s, f, u, p));
}
__attribute__((visibility("default"))) CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle s) {
  return logged("cuptiUnsubscribe", 0, FORWARD(cuptiUnsubscribe, s));
}
__attribute__((visibility("default"))) CUptiResult cuptiEnableCallback(uint32_t e,
                                                                       CUpti_SubscriberHandle s,
                                                                       CUpti_CallbackDomain d,
                                                                       CUpti_CallbackId c) {
  return logged(e ? "cuptiEnableCallback(on) domain*10000+cbid" : "cuptiEnableCallback(off)",
                d * 10000L + c, FORWARD(cuptiEnableCallback, e, s, d, c));
}
__attribute__((visibility("default"))) CUptiResult cuptiEnableDomain(uint32_t e,
                                                                     CUpti_SubscriberHandle s,
                                                                     CUpti_CallbackDomain d) {
  return logged(e ? "cuptiEnableDomain(on)" : "cuptiEnableDomain(off)", d,
                FORWARD(cuptiEnableDomain, e, s, d));
}
__attribute__((visibility("default"))) CUptiResult cuptiActivityRegisterCallbacks(
    CUpti_BuffersCallbackRequestFunc a, CUpti_BuffersCallbackCompleteFunc b) {
  return logged("cuptiActivityRegisterCallbacks", 0, FORWARD(cuptiActivityRegisterCallbacks, a, b));
}
__attribute__((visibility("default"))) CUptiResult cuptiActivityRegisterTimestampCallback(
    CUpti_TimestampCallbackFunc f) {
  return logged("cuptiActivityRegisterTimestampCallback", 0,
                FORWARD(cuptiActivityRegisterTimestampCallback, f));
}
__attribute__((visibility("default"))) CUptiResult cuptiActivityEnable(CUpti_ActivityKind k) {
  return logged("cuptiActivityEnable", k, FORWARD(cuptiActivityEnable, k));
}
__attribute__((visibility("default"))) CUptiResult cuptiActivityDisable(CUpti_ActivityKind k) {
  return logged("cuptiActivityDisable", k, FORWARD(cuptiActivityDisable, k));
}
__attribute__((visibility("default"))) CUptiResult cuptiActivityFlushAll(uint32_t f) {
  return logged("cuptiActivityFlushAll", f, FORWARD(cuptiActivityFlushAll, f));
}
__attribute__((visibility("default"))) CUptiResult cuptiActivitySetAttribute(
    CUpti_ActivityAttribute a, size_t* size, void* v) {
  return logged("cuptiActivitySetAttribute", a, FORWARD(cuptiActivitySetAttribute, a, size, v));
}
__attribute__((visibility("default"))) CUptiResult cuptiFinalize() {
  return logged("cuptiFinalize", 0, FORWARD(cuptiFinalize));
}
__attribute__((visibility("default"))) CUptiResult cuptiGetLastError() {
  return logged("cuptiGetLastError", 0, FORWARD(cuptiGetLastError));
}
}
