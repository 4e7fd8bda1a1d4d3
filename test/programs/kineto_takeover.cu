// kineto_takeover: a second CUPTI client in the process, calling CUPTI the way libkineto
// (pytorch/kineto, the engine of torch.profiler) does when a profiler is started and stopped
// mid-run while another tool already holds CUPTI (docs/architecture.md §3.4, issue 15 item 4).
// Calls, in order (the file/function of libkineto/src each follows is named at the call):
//   B launches of `step` + cudaDeviceSynchronize       (before: nobody else uses CUPTI)
//   kineto's start                                      (its timestamp callback, buffer callbacks,
//                                                        kinds; the subscriber is gprof's)
//   D launches, each inside a pushed CUSTOM0 external id, + cudaDeviceSynchronize
//   kineto's stop                                       (sync + flush, disable, collecting flush)
//   a pause of P ms                                     (the program goes on; no CUDA calls)
//   A launches of `step` + cudaDeviceSynchronize       (after)
//   with --finalize: cuptiFinalize, a pause of F ms, then A more launches + cudaDeviceSynchronize
// Usage: kineto_takeover [--before B] [--during D] [--after A] [--pause-ms P] [--finalize]
//                        [--pause-after-finalize-ms F]
//                        [--private-handle] [--profiler-window]
// (B = 4, D = 3, A = 5, P = 1000).
// --profiler-window: cudaProfilerStart after the first half of the B launches, cudaProfilerStop
// after the A launches, then 2 more launches: under GPROF_CAPTURE=cudaProfilerApi, a capture
// window around the takeover, with work issued before and after it.
//
// --private-handle: every CUPTI call goes through dlopen("libcupti.so.13", RTLD_LOCAL) + dlsym on
// that handle, as a tool that loads CUPTI itself does (and kineto first tries cuptiSubscribe:
// CuptiCallbackApi.cpp). Such calls reach CUPTI without passing through any interposed
// definition, so a preloaded profiler cannot see them; CUPTI's state is the same one (one
// library, one process), so they still replace its buffer callbacks and disable its kinds.
//
// It prints what the second client received: its kernel records, and the buffers it was handed
// that it never gave out (kineto's bufferCompleted logs "unknown buffer" and drops them). Links
// libcupti.so.13: on the fake (test/fakes/cupti first on LD_LIBRARY_PATH) or a real one.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <cupti.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <set>

__global__ void step(float* data) {
  data[threadIdx.x] += 1.0f;
}

namespace {

constexpr size_t kBufSize = 4 * 1024 * 1024;  // CuptiActivityApi.cpp: kBufSize(4 * 1024 * 1024)

std::mutex g_mutex;  // kineto's mutex_ (CuptiActivityApi::bufferRequested/bufferCompleted)
std::set<uint8_t*> g_allocated;
int g_kernels = 0;
int g_unknown_buffers = 0;
int g_external = 0;

// The CUPTI entry points the second client calls: the linked ones (through the global scope,
// where a preloaded definition comes first), or dlsym's on a handle of its own.
struct Api {
  decltype(&cuptiGetVersion) GetVersion = cuptiGetVersion;
  decltype(&cuptiGetResultString) GetResultString = cuptiGetResultString;
  decltype(&cuptiSubscribe) Subscribe = cuptiSubscribe;
  decltype(&cuptiUnsubscribe) Unsubscribe = cuptiUnsubscribe;
  decltype(&cuptiEnableCallback) EnableCallback = cuptiEnableCallback;
  decltype(&cuptiActivityRegisterTimestampCallback) RegisterTimestampCallback =
      cuptiActivityRegisterTimestampCallback;
  decltype(&cuptiActivityRegisterCallbacks) RegisterCallbacks = cuptiActivityRegisterCallbacks;
  decltype(&cuptiActivityEnable) Enable = cuptiActivityEnable;
  decltype(&cuptiActivityDisable) Disable = cuptiActivityDisable;
  decltype(&cuptiActivityFlushAll) FlushAll = cuptiActivityFlushAll;
  decltype(&cuptiActivitySetAttribute) SetAttribute = cuptiActivitySetAttribute;
  decltype(&cuptiActivityGetNextRecord) GetNextRecord = cuptiActivityGetNextRecord;
  decltype(&cuptiActivityPushExternalCorrelationId) PushExternal =
      cuptiActivityPushExternalCorrelationId;
  decltype(&cuptiActivityPopExternalCorrelationId) PopExternal =
      cuptiActivityPopExternalCorrelationId;
  decltype(&cuptiFinalize) Finalize = cuptiFinalize;
};
Api g_api;

template <typename Fn>
void Bind(void* handle, const char* name, Fn& fn) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "kineto_takeover: dlsym(%s): %s\n", name, dlerror());
    std::exit(1);
  }
  fn = reinterpret_cast<Fn>(symbol);
}

void UsePrivateHandle() {
  void* handle = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::fprintf(stderr, "kineto_takeover: dlopen(libcupti.so.13): %s\n", dlerror());
    std::exit(1);
  }
  Bind(handle, "cuptiGetVersion", g_api.GetVersion);
  Bind(handle, "cuptiGetResultString", g_api.GetResultString);
  Bind(handle, "cuptiSubscribe", g_api.Subscribe);
  Bind(handle, "cuptiUnsubscribe", g_api.Unsubscribe);
  Bind(handle, "cuptiEnableCallback", g_api.EnableCallback);
  Bind(handle, "cuptiActivityRegisterTimestampCallback", g_api.RegisterTimestampCallback);
  Bind(handle, "cuptiActivityRegisterCallbacks", g_api.RegisterCallbacks);
  Bind(handle, "cuptiActivityEnable", g_api.Enable);
  Bind(handle, "cuptiActivityDisable", g_api.Disable);
  Bind(handle, "cuptiActivityFlushAll", g_api.FlushAll);
  Bind(handle, "cuptiActivitySetAttribute", g_api.SetAttribute);
  Bind(handle, "cuptiActivityGetNextRecord", g_api.GetNextRecord);
  Bind(handle, "cuptiActivityPushExternalCorrelationId", g_api.PushExternal);
  Bind(handle, "cuptiActivityPopExternalCorrelationId", g_api.PopExternal);
  Bind(handle, "cuptiFinalize", g_api.Finalize);
}

void CUPTIAPI NoCallbacks(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "kineto_takeover: %s failed: %s\n", what, cudaGetErrorName(error));
  std::exit(1);
}

// kineto's CUPTI_CALL logs a failure and goes on; so does this.
void Cupti(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  g_api.GetResultString(result, &text);
  std::fprintf(stderr, "kineto_takeover: %s: %s\n", what, text ? text : "?");
}

// CuptiActivityProfiler.cpp: with use_cupti_tsc, kineto registers getApproximateTime(), which
// is __rdtsc() on x86 (c10/util/ApproximateClock.h): TSC ticks, not nanoseconds. Here a TSC of
// 2.5 GHz counting from CLOCK_REALTIME's epoch: far from CLOCK_MONOTONIC, so a profiler that
// keeps its old offset after this registration is visibly wrong, and one that takes ticks for
// nanoseconds gets every duration 2.5 times too long.
uint64_t CUPTIAPI KinetoClock() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  const uint64_t ns =
      static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  return ns * 5 / 2;
}

// CuptiActivityApi::bufferRequested: a new 4 MB buffer, remembered in allocatedGpuTraceBuffers_.
void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto* data = static_cast<uint8_t*>(std::aligned_alloc(8, kBufSize));
  g_allocated.insert(data);
  *buffer = data;
  *size = kBufSize;
  *max_records = 0;
}

// CuptiActivityApi::bufferCompleted: a buffer it did not hand out is logged and dropped.
void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_allocated.erase(buffer) == 0) {
    ++g_unknown_buffers;
    return;
  }
  CUpti_Activity* record = nullptr;
  while (g_api.GetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++g_kernels;
    if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) ++g_external;
  }
  std::free(buffer);
}

// The kinds of a default torch.profiler CUDA session, in the order torch 2.11's kineto enables
// and later disables them (observed through test/programs/cupti_call_log.cc: NVIDIA H100,
// driver 580.159.04, CUPTI 13.0.1, torch 2.11.0+cu130, 2026-11-27; test/fakes/observed/;
// CuptiActivityApi::enableCuptiActivities): MEMCPY, MEMSET, CONCURRENT_KERNEL,
// EXTERNAL_CORRELATION, RUNTIME, DRIVER, OVERHEAD.
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET,
                                         CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                         CUPTI_ACTIVITY_KIND_RUNTIME,
                                         CUPTI_ACTIVITY_KIND_DRIVER,
                                         CUPTI_ACTIVITY_KIND_OVERHEAD};

// CuptiActivityProfiler::enableGpuTracing.
void KinetoStart() {
  uint32_t version = 0;
  Cupti(g_api.GetVersion(&version), "cuptiGetVersion");  // enableCuptiActivities
  // configureCuptiTimestampSource (CuptiTimestamp.cpp), before enableCuptiActivities.
  Cupti(g_api.RegisterTimestampCallback(KinetoClock), "cuptiActivityRegisterTimestampCallback");
  // enableCuptiActivities: cuptiActivityRegisterCallbacks(bufferRequestedTrampoline,
  // bufferCompletedTrampoline), then cuptiActivityEnable per selected activity.
  Cupti(g_api.RegisterCallbacks(BufferRequested, BufferCompleted),
        "cuptiActivityRegisterCallbacks");
  for (const CUpti_ActivityKind kind : kKinds) Cupti(g_api.Enable(kind), "cuptiActivityEnable");
}

// The program's own synchronize (torch.cuda.synchronize() before the profiler's with-block
// ends), then disableGpuTracing (CuptiActivityApi::disableCuptiActivities: cuptiActivityDisable
// per kind), then processGpuActivities -> CuptiActivityApi::activityBuffers
// (cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), then the per-thread attribute set
// back to 0). Observed with torch 2.11 in that order, with no cuptiActivityFlushAll(0) before the
// disables (the call log in test/fakes/observed/).
void KinetoStop() {
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  for (const CUpti_ActivityKind kind : kKinds) Cupti(g_api.Disable(kind), "cuptiActivityDisable");
  Cupti(g_api.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  uint8_t value = 0;
  size_t size = sizeof value;
  Cupti(g_api.SetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &value),
        "cuptiActivitySetAttribute");
}

void Launches(float* data, int count, bool external) {
  for (int i = 0; i < count; ++i) {
    // CuptiActivityApi::pushCorrelationID / popCorrelationID (CUSTOM0) around each op.
    if (external)
      Cupti(g_api.PushExternal(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 1000 + i), "push");
    step<<<1, 32>>>(data);
    Check(cudaGetLastError(), "launch");
    if (external) Cupti(g_api.PopExternal(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr), "pop");
  }
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

int Arg(int argc, char** argv, int& i) {
  if (i + 1 >= argc) {
    std::fprintf(stderr, "kineto_takeover: %s needs a value\n", argv[i]);
    std::exit(2);
  }
  return std::atoi(argv[++i]);
}

}  // namespace

int main(int argc, char** argv) {
  int before = 4, during = 3, after = 5, pause_ms = 1000, finalize_pause_ms = 0;
  bool finalize = false, private_handle = false, subscribe = false, window = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--before") == 0) {
      before = Arg(argc, argv, i);
    } else if (std::strcmp(argv[i], "--during") == 0) {
      during = Arg(argc, argv, i);
    } else if (std::strcmp(argv[i], "--after") == 0) {
      after = Arg(argc, argv, i);
    } else if (std::strcmp(argv[i], "--pause-ms") == 0) {
      pause_ms = Arg(argc, argv, i);
    } else if (std::strcmp(argv[i], "--finalize") == 0) {
      finalize = true;
    } else if (std::strcmp(argv[i], "--pause-after-finalize-ms") == 0) {
      finalize_pause_ms = Arg(argc, argv, i);
    } else if (std::strcmp(argv[i], "--private-handle") == 0) {
      private_handle = true;
    } else if (std::strcmp(argv[i], "--subscribe") == 0) {
      subscribe = true;
    } else if (std::strcmp(argv[i], "--profiler-window") == 0) {
      window = true;
    } else {
      std::fprintf(stderr,
                   "usage: kineto_takeover [--before B] [--during D] [--after A] [--pause-ms P] "
                   "[--finalize] [--pause-after-finalize-ms F] [--private-handle] [--subscribe] "
                   "[--profiler-window]\n");
      return 2;
    }
  }
  float* data = nullptr;
  Check(cudaMalloc(&data, 32 * sizeof(float)), "cudaMalloc");
  if (window) {
    Launches(data, before / 2, false);
    Check(cudaProfilerStart(), "cudaProfilerStart");
    Launches(data, before - before / 2, false);
  } else {
    Launches(data, before, false);
  }
  if (private_handle) {
    UsePrivateHandle();
    // kineto subscribes for its callbacks first (CuptiCallbackApi::initCallbackApi); with a
    // profiler holding the slot, CUPTI refuses (cupti_callbacks.h, cuptiSubscribe:
    // CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED "if there is already a CUPTI subscriber"),
    // whichever handle the call came through; kineto logs it and goes on.
    CUpti_SubscriberHandle subscriber = nullptr;
    const CUptiResult r = g_api.Subscribe(&subscriber, NoCallbacks, nullptr);
    const char* text = nullptr;
    g_api.GetResultString(r, &text);
    std::printf("second client: cuptiSubscribe: %s\n", text ? text : "?");
  }
  CUpti_SubscriberHandle own = nullptr;
  bool gpu_tracing = true;
  if (subscribe) {
    // torch 2.11's kineto at its first profiler use (libkineto_init -> setupCuptiInitCallback ->
    // CuptiCallbackApi::initCallbackApi, CuptiCallbackApi.cpp:164-176 at kineto a2651fa6):
    // cuptiSubscribe(&subscriber_, callback_switchboard, nullptr), then
    // cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE, 2) (init.cpp:103-111; kineto's
    // RESOURCE_CONTEXT_CREATED is 2, which CUPTI reads as CONTEXT_DESTROY_STARTING). Refused, it
    // logs "CUPTI initialization failed - CUDA profiler activities will be missing" and builds a
    // CPU-only profiler (init.cpp:114-122, 159): no activity call at all. The same calls, in the
    // same order, were observed through test/programs/cupti_call_log.cc with torch 2.11.
    const CUptiResult r = g_api.Subscribe(&own, NoCallbacks, nullptr);
    if (r == CUPTI_SUCCESS) {
      Cupti(g_api.EnableCallback(1, own, CUPTI_CB_DOMAIN_RESOURCE, 2), "cuptiEnableCallback");
    } else {
      const char* text = nullptr;
      g_api.GetResultString(r, &text);
      std::printf(
          "second client: CUPTI initialization failed (%s) - CUDA profiler activities "
          "will be missing\n",
          text ? text : "?");
      gpu_tracing = false;
    }
  }
  if (gpu_tracing) KinetoStart();
  Launches(data, during, true);
  if (gpu_tracing) KinetoStop();
  timespec pause{pause_ms / 1000, static_cast<long>(pause_ms % 1000) * 1000000L};
  nanosleep(&pause, nullptr);
  Launches(data, after, false);
  if (window) {
    Check(cudaProfilerStop(), "cudaProfilerStop");
    Launches(data, 2, false);
  }
  if (finalize) {
    // CuptiCallbackApi.cpp:94-104: with TEARDOWN_CUPTI=1, cuptiUnsubscribe of its own subscriber
    // (when it has one) and cuptiFinalize.
    if (own != nullptr) Cupti(g_api.Unsubscribe(own), "cuptiUnsubscribe");
    Cupti(g_api.Finalize(), "cuptiFinalize");
    timespec quiet{finalize_pause_ms / 1000,
                   static_cast<long>(finalize_pause_ms % 1000) * 1000000L};
    nanosleep(&quiet, nullptr);
    Launches(data, after, false);
  }
  Check(cudaFree(data), "cudaFree");
  std::printf("second client: %d kernel records, %d external correlations, %d unknown buffers\n",
              g_kernels, g_external, g_unknown_buffers);
  return 0;
}
