// CUPTI's activity entry points, as another tool in the process calls them
// (docs/architecture.md §3.4): torch.profiler's kineto asks for the CUPTI subscriber
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

// What the session is told of one call: before it (a hand-off flush, the
// other tool's clock) when `before`, and after it, with its result.
struct Tell {
  gprof::ForeignCall call;
  bool before = false;
  CUpti_TimestampCallbackFunc clock = nullptr;
  CUpti_ActivityKind kind = CUPTI_ACTIVITY_KIND_INVALID;
};

// Calls the real `name` (found once, cached in `cache`) with `args`, telling
// the session around it.
template <typename Fn, typename... Args>
CUptiResult forward(std::atomic<void*>& cache, const char* name, const char* version,
                    const char* soname, Tell tell, Args... args) {
  void* f = cache.load(std::memory_order_acquire);
  if (f == nullptr) {
    f = find_real(name, version, soname);
    if (f == nullptr) return CUPTI_ERROR_NOT_INITIALIZED;
    cache.store(f, std::memory_order_release);
  }
  if (tell.before) gprof::foreign_cupti_before(tell.call, tell.clock);
  const CUptiResult r = reinterpret_cast<Fn>(f)(args...);
  gprof::foreign_cupti_after(tell.call, r, tell.kind);
  return r;
}

}  // namespace

// One exported definition per entry point and CUPTI major (SYMVER: the
// version string); its cache of the real function is its own.
#define GPROF_CUPTI_HOOK(MAJOR, SYMVER, SONAME, NAME, PARAMS, TELL, ...)         \
  extern "C" __attribute__((visibility("default"), symver(#NAME SYMVER)))        \
  CUptiResult gprof_cupti##MAJOR##_##NAME PARAMS {                               \
    constinit static std::atomic<void*> cache{nullptr};                          \
    return forward<decltype(&NAME)>(cache, #NAME, "libcupti.so." #MAJOR, SONAME, \
                                    TELL __VA_OPT__(, ) __VA_ARGS__);            \
  }

#define GPROF_CUPTI_HOOKS(MAJOR, SYMVER, SONAME)                                                 \
  GPROF_CUPTI_HOOK(                                                                              \
      MAJOR, SYMVER, SONAME, cuptiActivityRegisterCallbacks,                                     \
      (CUpti_BuffersCallbackRequestFunc requested, CUpti_BuffersCallbackCompleteFunc completed), \
      (Tell{gprof::ForeignCall::kRegisterCallbacks, true}), requested, completed)                \
  GPROF_CUPTI_HOOK(MAJOR, SYMVER, SONAME, cuptiActivityRegisterTimestampCallback,                \
                   (CUpti_TimestampCallbackFunc clock),                                          \
                   (Tell{gprof::ForeignCall::kTimestampCallback, true, clock}), clock)           \
  GPROF_CUPTI_HOOK(MAJOR, SYMVER, SONAME, cuptiActivityEnable, (CUpti_ActivityKind kind),        \
                   (Tell{gprof::ForeignCall::kEnable, false, nullptr, kind}), kind)              \
  GPROF_CUPTI_HOOK(MAJOR, SYMVER, SONAME, cuptiActivityDisable, (CUpti_ActivityKind kind),       \
                   (Tell{gprof::ForeignCall::kDisable, false, nullptr, kind}), kind)             \
  GPROF_CUPTI_HOOK(MAJOR, SYMVER, SONAME, cuptiFinalize, (),                                     \
                   (Tell{gprof::ForeignCall::kFinalize, true}))                                  \
  GPROF_CUPTI_HOOK(                                                                              \
      MAJOR, SYMVER, SONAME, cuptiSubscribe,                                                     \
      (CUpti_SubscriberHandle * subscriber, CUpti_CallbackFunc callback, void* userdata),        \
      (Tell{gprof::ForeignCall::kSubscribe, true}), subscriber, callback, userdata)              \
  GPROF_CUPTI_HOOK(MAJOR, SYMVER, SONAME, cuptiSubscribe_v2,                                     \
                   (CUpti_SubscriberHandle * subscriber, CUpti_CallbackFunc callback,            \
                    void* userdata, CUpti_SubscriberParams* params),                             \
                   (Tell{gprof::ForeignCall::kSubscribe, true}), subscriber, callback, userdata, \
                   params)                                                                       \
  GPROF_CUPTI_HOOK(MAJOR, SYMVER, SONAME, cuptiUnsubscribe, (CUpti_SubscriberHandle subscriber), \
                   (Tell{gprof::ForeignCall::kUnsubscribe}), subscriber)

GPROF_CUPTI_HOOKS(13, "@@libcupti.so.13", "libcupti.so.13")
GPROF_CUPTI_HOOKS(12, "@libcupti.so.12", "libcupti.so.12")
