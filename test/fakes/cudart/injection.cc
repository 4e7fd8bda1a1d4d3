#include "injection.h"

#include "runtime.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdlib>

namespace gprof_fake {
namespace {

enum State : int { kNotYet = 0, kRunning = 1, kDone = 2 };

std::atomic<int> g_state{kNotYet};
thread_local bool t_injecting = false;

// A fork during the injection leaves the child without the injecting thread; nothing would ever
// finish it there.
void FinishInChild() {
  g_state.store(kDone, std::memory_order_release);
}

// The real runtime reaches the driver through dlopen("libcuda.so.1") at its first call that needs
// it (a static cudart too, which is how profilers find libcuda loaded in any CUDA process); the
// driver then reads CUDA_INJECTION64_PATH in cuInit. The fake driver is loaded the same way when
// it is on the library path (its entry points come back here).
void LoadDriver() {
  static void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  static_cast<void>(driver);
}

void RunInjection() {
  LoadDriver();
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (path == nullptr || *path == '\0') return;
  void* library = dlopen(path, RTLD_NOW);
  if (library == nullptr) return;
  using Initialize = int (*)();
  const auto initialize = reinterpret_cast<Initialize>(dlsym(library, "InitializeInjection"));
  if (initialize != nullptr) initialize();
}

}  // namespace

void InjectOnce() {
  if (g_state.load(std::memory_order_acquire) == kDone || t_injecting) return;
  int expected = kNotYet;
  if (g_state.compare_exchange_strong(expected, kRunning, std::memory_order_acq_rel)) {
    pthread_atfork(nullptr, nullptr, FinishInChild);
    // The real runtime registers its teardown when it initializes, before cuInit runs the
    // injected tool (whose own exit handler therefore runs first). Calls made after it (static
    // destructors of objects built before CUDA was first used) fail with
    // cudaErrorCudartUnloading ("called during process shut down, at a point in time after CUDA
    // driver has been unloaded": CUDA Runtime API, enum cudaError).
    atexit([] { GetRuntime().unloading.store(true, std::memory_order_release); });
    t_injecting = true;
    RunInjection();
    t_injecting = false;
    g_state.store(kDone, std::memory_order_release);
    g_state.notify_all();
    return;
  }
  while (g_state.load(std::memory_order_acquire) == kRunning) g_state.wait(kRunning);
}

}  // namespace gprof_fake
