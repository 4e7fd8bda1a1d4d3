#include "runtime_link.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include "api_observer.h"
#include "config.h"
#include "gpu_records.h"

namespace gprof_fake_cupti {
namespace {

std::atomic<const RuntimeLink*> g_link{nullptr};
std::mutex g_lookup_mu;

// RTLD_DEFAULT finds the runtime a program links; a runtime that was dlopen'ed with RTLD_LOCAL
// (Python extensions, static-cudart programs loading libcuda.so.1) is found by its SONAME.
void* Find(const char* name) {
  if (void* symbol = dlsym(RTLD_DEFAULT, name); symbol != nullptr) return symbol;
  void* runtime = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (runtime == nullptr) return nullptr;
  void* symbol = dlsym(runtime, name);
  dlclose(runtime);  // only drops the reference RTLD_NOLOAD took
  return symbol;
}

template <typename Function>
bool Bind(const char* name, Function* out) {
  *out = reinterpret_cast<Function>(Find(name));
  return *out != nullptr;
}

const RuntimeLink* Lookup() {
  using SetGpuObserver = void (*)(GprofFakeGpuObserver, void*);
  using SetApiObserver = void (*)(GprofFakeApiObserver, void*);
  SetGpuObserver set_gpu_observer = nullptr;
  SetApiObserver set_api_observer = nullptr;
  RuntimeLink link;
  const bool found = Bind("gprof_fake_set_gpu_observer", &set_gpu_observer) &&
                     Bind("gprof_fake_set_api_observer", &set_api_observer) &&
                     Bind("gprof_fake_flush_gpu_ops", &link.flush_gpu_ops) &&
                     Bind("gprof_fake_device_count", &link.device_count) &&
                     Bind("gprof_fake_primary_context", &link.primary_context) &&
                     Bind("gprof_fake_context_device", &link.context_device) &&
                     Bind("gprof_fake_current_device", &link.current_device) &&
                     Bind("gprof_fake_stream_id", &link.stream_id);
  if (!found) return nullptr;
  // Published before the observers run: they read it.
  auto* published = new RuntimeLink(link);
  g_link.store(published, std::memory_order_release);
  set_api_observer(OnApiCall, nullptr);
  set_gpu_observer(OnGpuOp, nullptr);
  return published;
}

}  // namespace

const RuntimeLink* Link() {
  if (const RuntimeLink* link = g_link.load(std::memory_order_acquire); link != nullptr) {
    return link;
  }
  std::lock_guard lock(g_lookup_mu);
  if (const RuntimeLink* link = g_link.load(std::memory_order_acquire); link != nullptr) {
    return link;
  }
  return Lookup();
}

bool DriverAvailable() {
  return !GetConfig().no_driver && Link() != nullptr;
}

}  // namespace gprof_fake_cupti
