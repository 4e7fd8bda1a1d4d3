// launch_loop: N launches of an empty kernel on the default stream and one cudaDeviceSynchronize
// at the end; the launch-bound workload of the overhead benchmarks.
// Usage: launch_loop [N [PAUSE_US]]   (N defaults to 100000; PAUSE_US, default 0: a sleep after
// every 1000 launches, so that the run lasts a known time whatever the launches cost)
#include <cuda_runtime.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

namespace {

__global__ void empty_kernel() {}

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "launch_loop: %s failed: %s: %s\n", what, cudaGetErrorName(error),
               cudaGetErrorString(error));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  long launches = 100000;
  long pause_us = 0;
  if (argc > 3 || (argc >= 2 && (launches = std::atol(argv[1])) < 0) ||
      (argc == 3 && (pause_us = std::atol(argv[2])) < 0)) {
    std::fprintf(stderr, "usage: launch_loop [N [PAUSE_US]]\n");
    return 2;
  }
  const timespec pause{pause_us / 1000000, (pause_us % 1000000) * 1000};
  for (long i = 0; i < launches; ++i) {
    empty_kernel<<<1, 1>>>();
    if (pause_us > 0 && i % 1000 == 999) nanosleep(&pause, nullptr);
  }
  Check(cudaGetLastError(), "empty_kernel launch");
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::printf("launch_loop: %ld launches\n", launches);
  return 0;
}
