// libcupti_minimal.so: the least any CUPTI-based tool pays (issue 30: the floor of the overhead
// ladder, scripts/gpu_check.py). Preloaded, it enables CONCURRENT_KERNEL only, hands CUPTI
// large buffers mapped and zeroed up front (and promises so: CUPTI then zeroes nothing on the
// launching thread), counts the records of each completed buffer on CUPTI's thread and gives
// the buffer back. No API callbacks, no pairing, nothing written. At exit it flushes and prints
// "cupti_minimal: N kernels" on stderr. Test tool only: never in the shim.
#include <cupti.h>
#include <dlfcn.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr size_t kBufferBytes = 8u << 20;
constexpr int kBuffers = 16;

struct Cupti {
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks;
  decltype(&cuptiActivityEnable) enable;
  decltype(&cuptiActivityFlushAll) flush_all;
  decltype(&cuptiActivityGetNextRecord) next_record;
  decltype(&cuptiActivitySetAttribute) set_attribute;
} g_cupti;

uint8_t* g_buffers[kBuffers];
std::atomic<bool> g_free[kBuffers];
std::atomic<unsigned long long> g_kernels{0};

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
  unsigned long long kernels = 0;
  while (g_cupti.next_record(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++kernels;
  g_kernels += kernels;
  std::memset(buffer, 0, valid);
  for (int i = 0; i < kBuffers; ++i)
    if (g_buffers[i] == buffer) g_free[i].store(true);
}

void at_exit() {
  if (g_cupti.flush_all) g_cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::fprintf(stderr, "cupti_minimal: %llu kernels\n", g_kernels.load());
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
      !find(library, g_cupti.set_attribute, "cuptiActivitySetAttribute")) {
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
  std::atexit(at_exit);
}

}  // namespace
