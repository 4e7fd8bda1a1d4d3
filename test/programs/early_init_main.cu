// early_init_main: CUDA initialized by a linked library's constructor (libearly_cuda_init) before
// the profiler's constructor runs, then ordinary runtime work in two phases 300 ms apart, so that
// a profiler that attaches once it finds CUDA running has attached before the second phase.
// Runtime calls, in order: 1 cudaMalloc, K x (touch launch) + 1 cudaDeviceSynchronize, a 300 ms
// pause, K x (touch launch) + 1 cudaDeviceSynchronize, 1 cudaFree (tests count these).
// Usage: early_init_main [K]   (K defaults to 5). stdout is deterministic.
#include <cuda_runtime.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

extern "C" int early_cuda_init_result();  // libearly_cuda_init

__global__ void touch(float* p) {
  p[threadIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
  const int k = argc > 1 ? std::atoi(argv[1]) : 5;
  float* p = nullptr;
  int failures = cudaMalloc(&p, 32 * sizeof(float)) != cudaSuccess;
  for (int phase = 0; phase < 2; ++phase) {
    for (int i = 0; i < k; ++i) touch<<<1, 32>>>(p);
    failures += cudaDeviceSynchronize() != cudaSuccess;
    if (phase == 0) {
      timespec pause{0, 300 * 1000 * 1000};
      nanosleep(&pause, nullptr);
    }
  }
  failures += cudaFree(p) != cudaSuccess;
  std::printf("early_init_main: cuInit in a constructor returned %d; %d launches, failures=%d\n",
              early_cuda_init_result(), 2 * k, failures);
  return failures == 0 ? 0 : 1;
}
