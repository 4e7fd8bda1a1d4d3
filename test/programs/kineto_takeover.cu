// kineto_takeover: a second CUPTI client in the process, calling CUPTI the way libkineto
// (pytorch/kineto, the engine of torch.profiler) does when a profiler is started and stopped
// mid-run while another tool already holds CUPTI (DESIGN.md §2.9, issue 15 item 4). Calls, in
// order (the file/function of libkineto/src each follows is named at the call):
//   B launches of `step` + cudaDeviceSynchronize       (before: nobody else uses CUPTI)
//   kineto's start                                      (its timestamp callback, buffer callbacks,
//                                                        kinds; the subscriber is gprof's)
//   D launches, each inside a pushed CUSTOM0 external id, + cudaDeviceSynchronize
//   kineto's stop                                       (sync + flush, disable, collecting flush)
//   a pause of P ms                                     (the program goes on; no CUDA calls)
//   A launches of `step` + cudaDeviceSynchronize       (after)
//   with --finalize: cuptiFinalize, then A more launches + cudaDeviceSynchronize
// Usage: kineto_takeover [--before B] [--during D] [--after A] [--pause-ms P] [--finalize]
// (B = 4, D = 3, A = 5, P = 1000).
//
// It prints what the second client received: its kernel records, and the buffers it was handed
// that it never gave out (kineto's bufferCompleted logs "unknown buffer" and drops them). Links
// libcupti.so.13: on the fake (test/fakes/cupti first on LD_LIBRARY_PATH) or a real one.
#include <cuda_runtime.h>
#include <cupti.h>

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

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "kineto_takeover: %s failed: %s\n", what, cudaGetErrorName(error));
  std::exit(1);
}

// kineto's CUPTI_CALL logs a failure and goes on; so does this.
void Cupti(CUptiResult result, const char* what) {
  if (result == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  std::fprintf(stderr, "kineto_takeover: %s: %s\n", what, text ? text : "?");
}

// CuptiTimestamp.cpp: with use_cupti_tsc, kineto's clock is getApproximateTime(), a clock of
// its own. CLOCK_REALTIME here: far from CLOCK_MONOTONIC, so a profiler that keeps its old
// offset after this registration is visibly wrong.
uint64_t CUPTIAPI KinetoClock() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
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
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++g_kernels;
    if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) ++g_external;
  }
  std::free(buffer);
}

// The kinds of a default torch.profiler CUDA session (CuptiActivityApi::enableCuptiActivities:
// GPU_MEMCPY, GPU_MEMSET, CONCURRENT_KERNEL, EXTERNAL_CORRELATION, CUDA_RUNTIME).
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME};

// CuptiActivityProfiler::enableGpuTracing.
void KinetoStart() {
  uint32_t version = 0;
  Cupti(cuptiGetVersion(&version), "cuptiGetVersion");  // enableCuptiActivities
  // configureCuptiTimestampSource (CuptiTimestamp.cpp), before enableCuptiActivities.
  Cupti(cuptiActivityRegisterTimestampCallback(KinetoClock),
        "cuptiActivityRegisterTimestampCallback");
  // enableCuptiActivities: cuptiActivityRegisterCallbacks(bufferRequestedTrampoline,
  // bufferCompletedTrampoline), then cuptiActivityEnable per selected activity.
  Cupti(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted),
        "cuptiActivityRegisterCallbacks");
  for (const CUpti_ActivityKind kind : kKinds)
    Cupti(cuptiActivityEnable(kind), "cuptiActivityEnable");
}

// CuptiActivityProfiler::synchronizeGpuDevice (cudaDeviceSynchronize + flushActivities:
// cuptiActivityFlushAll(0)), disableGpuTracing (CuptiActivityApi::disableCuptiActivities:
// cuptiActivityDisable per kind), then processGpuActivities -> CuptiActivityApi::activityBuffers
// (cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), then the per-thread attribute set
// back to 0).
void KinetoStop() {
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  Cupti(cuptiActivityFlushAll(0), "cuptiActivityFlushAll");
  for (const CUpti_ActivityKind kind : kKinds)
    Cupti(cuptiActivityDisable(kind), "cuptiActivityDisable");
  Cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  uint8_t value = 0;
  size_t size = sizeof value;
  Cupti(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &size, &value),
        "cuptiActivitySetAttribute");
}

void Launches(float* data, int count, bool external) {
  for (int i = 0; i < count; ++i) {
    // CuptiActivityApi::pushCorrelationID / popCorrelationID (CUSTOM0) around each op.
    if (external)
      Cupti(
          cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 1000 + i),
          "push");
    step<<<1, 32>>>(data);
    Check(cudaGetLastError(), "launch");
    if (external)
      Cupti(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, nullptr),
            "pop");
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
  int before = 4, during = 3, after = 5, pause_ms = 1000;
  bool finalize = false;
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
    } else {
      std::fprintf(stderr,
                   "usage: kineto_takeover [--before B] [--during D] [--after A] [--pause-ms P] "
                   "[--finalize]\n");
      return 2;
    }
  }
  float* data = nullptr;
  Check(cudaMalloc(&data, 32 * sizeof(float)), "cudaMalloc");
  Launches(data, before, false);
  KinetoStart();
  Launches(data, during, true);
  KinetoStop();
  timespec pause{pause_ms / 1000, static_cast<long>(pause_ms % 1000) * 1000000L};
  nanosleep(&pause, nullptr);
  Launches(data, after, false);
  if (finalize) {
    // CuptiCallbackApi.cpp: with TEARDOWN_CUPTI=1, cuptiUnsubscribe of its own subscriber (it has
    // none here: gprof holds the slot) and cuptiFinalize.
    Cupti(cuptiFinalize(), "cuptiFinalize");
    Launches(data, after, false);
  }
  Check(cudaFree(data), "cudaFree");
  std::printf("second client: %d kernel records, %d external correlations, %d unknown buffers\n",
              g_kernels, g_external, g_unknown_buffers);
  return 0;
}
