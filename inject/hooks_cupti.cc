// CUPTI's activity entry points, as another tool in the process calls them
// (DESIGN.md §2.9): torch.profiler's kineto asks for the CUPTI subscriber
// (cuptiSubscribe: gprof gives its own up first), registers its own buffer
// callbacks and timestamp callback, enables and disables kinds and may call
// cuptiFinalize, all process-wide. The preload interposes these eight (exported as
// name@@libcupti.so.13 and name@libcupti.so.12, the real library's version nodes), tells the CUPTI
// session before and after, and forwards to the real function. gprof's own
// calls go through the library handle (collector/gpu/cupti_library.h) and never
// come here. Rare calls, not a hot path: no lock, no allocation, no logging.
#include <cupti.h>
#include <dlfcn.h>

#include <atomic>

#include "collector/gpu/cupti_session.h"

namespace {

// The real definition of `name` in the CUPTI of `version`: the next one in
// the global scope, else the loaded library by soname (a libcupti that came
// with an RTLD_LOCAL dlopen, as Python loads torch's). Cached once found.
void* find_real(const char* name, const char* version, const char* soname) {
  if (void* f = dlvsym(RTLD_NEXT, name, version)) return f;
  if (void* handle = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD)) {
    void* f = dlvsym(handle, name, version);
    dlclose(handle);  // NOLOAD: drops the reference it took
    return f;
  }
  return nullptr;
}

template <typename Fn>
Fn real(std::atomic<void*>& cache, const char* name, const char* version, const char* soname) {
  void* f = cache.load(std::memory_order_acquire);
  if (f == nullptr) {
    f = find_real(name, version, soname);
    if (f != nullptr) cache.store(f, std::memory_order_release);
  }
  return reinterpret_cast<Fn>(f);
}

}  // namespace

// One definition per CUPTI major; MAJOR_VERSION is the symver string.
#define GPROF_CUPTI_HOOKS(MAJOR, SYMVER, SONAME)                                                  \
  namespace {                                                                                     \
  std::atomic<void*> g_register##MAJOR{nullptr}, g_timestamp##MAJOR{nullptr},                     \
      g_enable##MAJOR{nullptr}, g_disable##MAJOR{nullptr}, g_finalize##MAJOR{nullptr},            \
      g_subscribe##MAJOR{nullptr}, g_unsubscribe##MAJOR{nullptr}, g_subscribe_v2##MAJOR{nullptr}; \
  }                                                                                               \
  extern "C"                                                                                      \
      __attribute__((visibility("default"), symver("cuptiActivityRegisterCallbacks" SYMVER)))     \
      CUptiResult gprof_cupti##MAJOR##_register(CUpti_BuffersCallbackRequestFunc requested,       \
                                                CUpti_BuffersCallbackCompleteFunc completed) {    \
    auto fn = real<decltype(&cuptiActivityRegisterCallbacks)>(                                    \
        g_register##MAJOR, "cuptiActivityRegisterCallbacks", "libcupti.so." #MAJOR, SONAME);      \
    if (fn == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;                                        \
    gprof::foreign_cupti_before(gprof::ForeignCall::kRegisterCallbacks);                          \
    const CUptiResult r = fn(requested, completed);                                               \
    gprof::foreign_cupti_after(gprof::ForeignCall::kRegisterCallbacks, r);                        \
    return r;                                                                                     \
  }                                                                                               \
  extern "C" __attribute__((visibility("default"),                                                \
                            symver("cuptiActivityRegisterTimestampCallback" SYMVER)))             \
  CUptiResult gprof_cupti##MAJOR##_timestamp(CUpti_TimestampCallbackFunc clock) {                 \
    auto fn = real<decltype(&cuptiActivityRegisterTimestampCallback)>(                            \
        g_timestamp##MAJOR, "cuptiActivityRegisterTimestampCallback", "libcupti.so." #MAJOR,      \
        SONAME);                                                                                  \
    if (fn == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;                                        \
    gprof::foreign_cupti_before(gprof::ForeignCall::kTimestampCallback, clock);                   \
    const CUptiResult r = fn(clock);                                                              \
    gprof::foreign_cupti_after(gprof::ForeignCall::kTimestampCallback, r);                        \
    return r;                                                                                     \
  }                                                                                               \
  extern "C" __attribute__((visibility("default"), symver("cuptiActivityEnable" SYMVER)))         \
  CUptiResult gprof_cupti##MAJOR##_enable(CUpti_ActivityKind kind) {                              \
    auto fn = real<decltype(&cuptiActivityEnable)>(g_enable##MAJOR, "cuptiActivityEnable",        \
                                                   "libcupti.so." #MAJOR, SONAME);                \
    if (fn == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;                                        \
    const CUptiResult r = fn(kind);                                                               \
    gprof::foreign_cupti_after(gprof::ForeignCall::kEnable, r, kind);                             \
    return r;                                                                                     \
  }                                                                                               \
  extern "C" __attribute__((visibility("default"), symver("cuptiActivityDisable" SYMVER)))        \
  CUptiResult gprof_cupti##MAJOR##_disable(CUpti_ActivityKind kind) {                             \
    auto fn = real<decltype(&cuptiActivityDisable)>(g_disable##MAJOR, "cuptiActivityDisable",     \
                                                    "libcupti.so." #MAJOR, SONAME);               \
    if (fn == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;                                        \
    const CUptiResult r = fn(kind);                                                               \
    gprof::foreign_cupti_after(gprof::ForeignCall::kDisable, r, kind);                            \
    return r;                                                                                     \
  }                                                                                               \
  extern "C" __attribute__((visibility("default"), symver("cuptiFinalize" SYMVER)))               \
  CUptiResult gprof_cupti##MAJOR##_finalize() {                                                   \
    auto fn = real<decltype(&cuptiFinalize)>(g_finalize##MAJOR, "cuptiFinalize",                  \
                                             "libcupti.so." #MAJOR, SONAME);                      \
    if (fn == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;                                        \
    gprof::foreign_cupti_before(gprof::ForeignCall::kFinalize);                                   \
    const CUptiResult r = fn();                                                                   \
    gprof::foreign_cupti_after(gprof::ForeignCall::kFinalize, r);                                 \
    return r;                                                                                     \
  }                                                                                               \
  extern "C" __attribute__((visibility("default"), symver("cuptiSubscribe" SYMVER)))              \
  CUptiResult gprof_cupti##MAJOR##_subscribe(CUpti_SubscriberHandle* subscriber,                  \
                                             CUpti_CallbackFunc callback, void* userdata) {       \
    auto fn = real<decltype(&cuptiSubscribe)>(g_subscribe##MAJOR, "cuptiSubscribe",               \
                                              "libcupti.so." #MAJOR, SONAME);                     \
    if (fn == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;                                        \
    gprof::foreign_cupti_before(gprof::ForeignCall::kSubscribe);                                  \
    const CUptiResult r = fn(subscriber, callback, userdata);                                     \
    gprof::foreign_cupti_after(gprof::ForeignCall::kSubscribe, r);                                \
    return r;                                                                                     \
  }                                                                                               \
  extern "C" __attribute__((visibility("default"), symver("cuptiUnsubscribe" SYMVER)))            \
  CUptiResult gprof_cupti##MAJOR##_unsubscribe(CUpti_SubscriberHandle subscriber) {               \
    auto fn = real<decltype(&cuptiUnsubscribe)>(g_unsubscribe##MAJOR, "cuptiUnsubscribe",         \
                                                "libcupti.so." #MAJOR, SONAME);                   \
    if (fn == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;                                        \
    const CUptiResult r = fn(subscriber);                                                         \
    gprof::foreign_cupti_after(gprof::ForeignCall::kUnsubscribe, r);                              \
    return r;                                                                                     \
  }                                                                                               \
  extern "C" __attribute__((visibility("default"), symver("cuptiSubscribe_v2" SYMVER)))           \
  CUptiResult gprof_cupti##MAJOR##_subscribe_v2(CUpti_SubscriberHandle* subscriber,               \
                                                CUpti_CallbackFunc callback, void* userdata,      \
                                                CUpti_SubscriberParams* params) {                 \
    auto fn = real<decltype(&cuptiSubscribe_v2)>(g_subscribe_v2##MAJOR, "cuptiSubscribe_v2",      \
                                                 "libcupti.so." #MAJOR, SONAME);                  \
    if (fn == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;                                        \
    gprof::foreign_cupti_before(gprof::ForeignCall::kSubscribe);                                  \
    const CUptiResult r = fn(subscriber, callback, userdata, params);                             \
    gprof::foreign_cupti_after(gprof::ForeignCall::kSubscribe, r);                                \
    return r;                                                                                     \
  }

GPROF_CUPTI_HOOKS(13, "@@libcupti.so.13", "libcupti.so.13")
GPROF_CUPTI_HOOKS(12, "@libcupti.so.12", "libcupti.so.12")
