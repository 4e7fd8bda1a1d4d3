// launch_loop: N launches of an empty kernel on the default stream and one cudaDeviceSynchronize
// at the end; the launch-bound workload of the overhead benchmarks.
// Usage: launch_loop [N]   (N defaults to 100000)
#include <cuda_runtime.h>

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
  if (argc > 2 || (argc == 2 && (launches = std::atol(argv[1])) < 0)) {
    std::fprintf(stderr, "usage: launch_loop [N]\n");
    return 2;
  }
  for (long i = 0; i < launches; ++i) empty_kernel<<<1, 1>>>();
  Check(cudaGetLastError(), "empty_kernel launch");
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::printf("launch_loop: %ld launches\n", launches);
  return 0;
}
