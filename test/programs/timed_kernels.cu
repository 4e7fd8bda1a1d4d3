// timed_kernels: N launches of a kernel that spins for a set number of cycles, each between two
// CUDA events, so that a profiler's GPU times can be checked against the events' elapsed times
// (scripts/gpu-check, test/e2e). Runtime calls per launch: a `gate` launch, cudaEventRecord,
// the `spin` launch, cudaEventRecord, cudaEventSynchronize, cudaEventElapsedTime.
// Usage: timed_kernels [--launches N] [--cycles C] [--events-json PATH]
//   --events-json writes [{"launch": i, "event_ms": t}, ...]; stdout stays deterministic.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// The same work under another name, launched ahead of the first event: the
// stream is busy when that event is recorded, so the event completes when
// `gate` ends and `spin`, queued by then, starts at once. The events then
// bracket `spin` alone, not also the CPU's time between cudaEventRecord and the
// launch, which a loaded machine or the fake runtime (whose events complete
// at the end of the stream's queued work, test/fakes/cudart/api_event.cc)
// stretches far beyond a real launch's few microseconds.
__global__ void gate(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

namespace {

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "timed_kernels: %s failed: %s: %s\n", what, cudaGetErrorName(error),
               cudaGetErrorString(error));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  int launches = 20;
  long long cycles = 2000000;  // about 1 ms at 2 GHz
  const char* events_json = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--launches") == 0 && i + 1 < argc) {
      launches = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--cycles") == 0 && i + 1 < argc) {
      cycles = std::atoll(argv[++i]);
    } else if (std::strcmp(argv[i], "--events-json") == 0 && i + 1 < argc) {
      events_json = argv[++i];
    } else {
      std::fprintf(stderr, "usage: timed_kernels [--launches N] [--cycles C] [--events-json P]\n");
      return 2;
    }
  }
  cudaEvent_t before, after;
  Check(cudaEventCreate(&before), "cudaEventCreate");
  Check(cudaEventCreate(&after), "cudaEventCreate");
  std::vector<float> elapsed_ms(static_cast<size_t>(launches));
  for (int i = 0; i < launches; ++i) {
    gate<<<1, 1>>>(cycles);
    Check(cudaGetLastError(), "gate launch");
    Check(cudaEventRecord(before), "cudaEventRecord");
    spin<<<1, 1>>>(cycles);
    Check(cudaGetLastError(), "spin launch");
    Check(cudaEventRecord(after), "cudaEventRecord");
    Check(cudaEventSynchronize(after), "cudaEventSynchronize");
    Check(cudaEventElapsedTime(&elapsed_ms[static_cast<size_t>(i)], before, after),
          "cudaEventElapsedTime");
  }
  Check(cudaEventDestroy(before), "cudaEventDestroy");
  Check(cudaEventDestroy(after), "cudaEventDestroy");
  if (events_json) {
    FILE* out = std::fopen(events_json, "w");
    if (!out) {
      std::perror(events_json);
      return 1;
    }
    std::fprintf(out, "[");
    for (int i = 0; i < launches; ++i)
      std::fprintf(out, "%s{\"launch\": %d, \"event_ms\": %.6f}", i ? ", " : "", i,
                   static_cast<double>(elapsed_ms[static_cast<size_t>(i)]));
    std::fprintf(out, "]\n");
    std::fclose(out);
  }
  std::printf("timed_kernels: %d launches of spin(%lld cycles)\n", launches, cycles);
  return 0;
}
