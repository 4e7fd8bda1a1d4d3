// Process-wide behaviour: CUDA_INJECTION64_PATH (once, first, never again after fork), and
// cuptiFinalize.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cases.h"
#include "check.h"
#include "client.h"
#include "injection_probe.h"
#include "util.h"

namespace fake_check {
namespace {

struct Probe {
  int (*injections)() = nullptr;
  const char* (*first_call)() = nullptr;
};

// The probe as the runtime loaded it; null functions when it was not loaded.
Probe FindProbe() {
  Probe probe;
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  void* handle = path != nullptr ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  if (handle == nullptr) return probe;
  probe.injections = reinterpret_cast<int (*)()>(dlsym(handle, "gprof_probe_injections"));
  probe.first_call = reinterpret_cast<const char* (*)()>(dlsym(handle, "gprof_probe_first_call"));
  return probe;
}

}  // namespace

void InjectionCase() {
  CHECK(FindProbe().injections == nullptr);  // registration does not initialize the driver
  int count = 0;
  CHECK_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  const Probe probe = FindProbe();
  CHECK(probe.injections != nullptr);
  if (probe.injections == nullptr) return;
  CHECK_EQ(probe.injections(), 1);
  // The injected tool saw the very call that loaded it.
  CHECK_EQ(std::string(probe.first_call()), std::string("cudaGetDeviceCount"));

  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([] {
      int device = -1;
      CHECK_EQ(cudaGetDevice(&device), cudaSuccess);
    });
  }
  for (std::thread& thread : threads) thread.join();
  CUpti_SubscriberHandle subscriber = nullptr;
  CHECK_EQ(Subscribe(&subscriber), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);  // the tool's
  CHECK_EQ(cuInit(0), CUDA_SUCCESS);
  CHECK_EQ(probe.injections(), 1);

  // A child of a fork never injects again (and cannot use the device).
  const pid_t child = fork();
  if (child == 0) {
    int child_count = 0;
    cudaGetDeviceCount(&child_count);
    _exit(probe.injections() == 1 ? 0 : 1);
  }
  int status = 0;
  CHECK_EQ(waitpid(child, &status, 0), child);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

void InjectionAtCuInitCase() {
  CHECK_EQ(cuInit(0), CUDA_SUCCESS);
  const Probe probe = FindProbe();
  CHECK(probe.injections != nullptr);
  if (probe.injections == nullptr) return;
  CHECK_EQ(probe.injections(), 1);
  CHECK_EQ(std::string(probe.first_call()), std::string("cuInit"));
  int count = 0;
  CHECK_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  CHECK_EQ(probe.injections(), 1);
}

void FinalizeCase() {
  CUpti_SubscriberHandle subscriber = nullptr;
  CHECK_EQ(Subscribe(&subscriber), CUPTI_SUCCESS);
  CHECK_EQ(RegisterBuffers(), CUPTI_SUCCESS);
  CHECK_EQ(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), CUPTI_SUCCESS);
  int device = -1;
  CHECK_EQ(cudaGetDevice(&device), cudaSuccess);
  CHECK_EQ(cuptiFinalize(), CUPTI_SUCCESS);
  // The pending record did not come back (observed with CUPTI 13.0.1: cuptiFinalize completes
  // no buffer); then everything is as at the start.
  CHECK_EQ(OfKind(TakeRecords(), CUPTI_ACTIVITY_KIND_RUNTIME).size(), 0u);
  CHECK_EQ(BadCompletions(), 0u);
  CHECK_EQ(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
  CHECK_EQ(
      cuptiActivityRegisterTimestampCallback([] { return static_cast<uint64_t>(MonotonicNs()); }),
      CUPTI_SUCCESS);
  CHECK_EQ(Subscribe(&subscriber), CUPTI_SUCCESS);
}

}  // namespace fake_check
