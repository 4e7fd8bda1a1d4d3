// libcupti_minimal.so: the least any CUPTI-based tool pays (issue 30: the floor of the overhead
// ladder, scripts/gpu_check.py). Preloaded, it enables CONCURRENT_KERNEL only, hands CUPTI
// large buffers mapped and zeroed up front (and promises so: CUPTI then zeroes nothing on the
// launching thread), counts the records of each completed buffer on CUPTI's thread and gives
// the buffer back. No API callbacks, no pairing, nothing written. At exit it flushes and prints
// "cupti_minimal: N kernels" on stderr. Test tool only: never in the shim.
//
// What each way of learning a launch's correlation id adds to that floor (the ladder's
// "minimal +" rungs), for gprof's choice of one:
//   CUPTI_MINIMAL_CORRELATION=launch-callback: a subscriber with the runtime's launch callbacks
//     enabled (__cudaLaunchKernel, cudaLaunchKernel, cudaLaunchKernelExC and their
//     per-thread-stream forms), which keeps the id of each
//     call on its thread, as gprof's handler does for an interposed call;
//   =driver-callbacks: those, and every callback of the driver's domain (each runtime launch
//     makes a driver call inside it);
//   =runtime-activity: no callbacks, CUPTI_ACTIVITY_KIND_RUNTIME records instead (each holds the
//     call's id, thread and times, to be matched with the hook's call after reading).
#include <cupti.h>
#include <dlfcn.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {

constexpr size_t kBufferBytes = 8u << 20;
constexpr int kBuffers = 16;

struct Cupti {
  decltype(&cuptiSubscribe) subscribe;
  decltype(&cuptiEnableCallback) enable_callback;
  decltype(&cuptiEnableDomain) enable_domain;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks;
  decltype(&cuptiActivityEnable) enable;
  decltype(&cuptiActivityFlushAll) flush_all;
  decltype(&cuptiActivityGetNextRecord) next_record;
  decltype(&cuptiActivitySetAttribute) set_attribute;
} g_cupti;

uint8_t* g_buffers[kBuffers];
std::atomic<bool> g_free[kBuffers];
std::atomic<unsigned long long> g_kernels{0};
std::atomic<unsigned long long> g_runtime_records{0};
std::atomic<unsigned long long> g_callbacks{0};
// Written as gprof's handler writes the id, and never read: volatile, so
// that the compiler keeps the store the rung prices.
thread_local volatile uint32_t t_correlation = 0;

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cb->callbackSite == CUPTI_API_ENTER) t_correlation = cb->correlationId;
  g_callbacks.fetch_add(1, std::memory_order_relaxed);
}

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = nullptr;
  *size = 0;
  *max_records = 0;
  for (int i = 0; i < kBuffers; ++i) {
    bool expected = true;
    if (g_free[i].compare_exchange_strong(expected, false)) {
      *buffer = g_buffers[i];
      *size = kBufferBytes;
      return;
    }
  }
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  unsigned long long kernels = 0, runtime = 0;
  while (g_cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++kernels;
    if (record->kind == CUPTI_ACTIVITY_KIND_RUNTIME) ++runtime;
  }
  g_kernels += kernels;
  g_runtime_records += runtime;
  std::memset(buffer, 0, valid);
  for (int i = 0; i < kBuffers; ++i)
    if (g_buffers[i] == buffer) g_free[i].store(true);
}

void at_exit() {
  if (g_cupti.flush_all) g_cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr, "cupti_minimal: %llu kernels, %llu runtime records, %llu callbacks\n",
               g_kernels.load(), g_runtime_records.load(), g_callbacks.load());
}

template <typename F>
bool find(void* library, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(library, name));
  return f != nullptr;
}

__attribute__((constructor)) void start() {
  void* library = nullptr;
  for (const char* soname : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"})
    if ((library = dlopen(soname, RTLD_NOW | RTLD_GLOBAL)) != nullptr) break;
  if (!library || !find(library, g_cupti.register_callbacks, "cuptiActivityRegisterCallbacks") ||
      !find(library, g_cupti.enable, "cuptiActivityEnable") ||
      !find(library, g_cupti.flush_all, "cuptiActivityFlushAll") ||
      !find(library, g_cupti.next_record, "cuptiActivityGetNextRecord") ||
      !find(library, g_cupti.set_attribute, "cuptiActivitySetAttribute") ||
      !find(library, g_cupti.subscribe, "cuptiSubscribe") ||
      !find(library, g_cupti.enable_callback, "cuptiEnableCallback") ||
      !find(library, g_cupti.enable_domain, "cuptiEnableDomain")) {
    std::fprintf(stderr, "cupti_minimal: no CUPTI\n");
    return;
  }
  for (int i = 0; i < kBuffers; ++i) {
    void* memory = mmap(nullptr, kBufferBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (memory == MAP_FAILED) std::abort();
    g_buffers[i] = static_cast<uint8_t*>(memory);
    g_free[i].store(true);
  }
  uint8_t zeroed = 1;
  size_t size = sizeof zeroed;
  g_cupti.set_attribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &size, &zeroed);
  if (g_cupti.register_callbacks(requested, completed) != CUPTI_SUCCESS ||
      g_cupti.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "cupti_minimal: CUPTI refused\n");
    return;
  }
  const char* correlation = std::getenv("CUPTI_MINIMAL_CORRELATION");
  const std::string_view way = correlation != nullptr ? correlation : "";
  if (way == "launch-callback" || way == "driver-callbacks") {
    CUpti_SubscriberHandle subscriber = nullptr;
    bool ok = g_cupti.subscribe(&subscriber, on_callback, nullptr) == CUPTI_SUCCESS;
    // CUDA 13 compiles <<<>>> to __cudaLaunchKernel (test/fakes/cudart/api_launch.cc).
    for (CUpti_CallbackId id : {CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
                                CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
                                CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060})
      ok = ok &&
           g_cupti.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id) == CUPTI_SUCCESS;
    if (ok && way == "driver-callbacks")
      ok = g_cupti.enable_domain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) == CUPTI_SUCCESS;
    if (!ok) std::fprintf(stderr, "cupti_minimal: callbacks refused\n");
  } else if (way == "runtime-activity") {
    if (g_cupti.enable(CUPTI_ACTIVITY_KIND_RUNTIME) != CUPTI_SUCCESS)
      std::fprintf(stderr, "cupti_minimal: CUPTI_ACTIVITY_KIND_RUNTIME refused\n");
  } else if (!way.empty()) {
    std::fprintf(stderr, "cupti_minimal: CUPTI_MINIMAL_CORRELATION=%s unknown\n", correlation);
  }
  std::atexit(at_exit);
}

}  // namespace
