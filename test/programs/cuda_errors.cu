// cuda_errors: runtime calls that fail, each with a well-known error, then one successful
// allocation. Prints the name of every returned error and exits with code 3, so that tests can
// check that a profiler records error codes and preserves the exit status.
//
// On a GPU and on the fake runtime the expected names are the same; on the real runtime without
// a driver every call reports cudaErrorInsufficientDriver instead, which is fine: nothing here
// crashes on failure.
#include <cuda_runtime.h>

#include <cstdio>

namespace {

__global__ void empty_kernel() {}

void Report(const char* what, cudaError_t error) {
  std::printf("cuda_errors: %s -> %s\n", what, cudaGetErrorName(error));
}

}  // namespace

int main() {
  Report("cudaSetDevice(999)", cudaSetDevice(999));

  void* huge = nullptr;
  Report("cudaMalloc(1 << 50)", cudaMalloc(&huge, size_t{1} << 50));

  // An invalid configuration surfaces through cudaGetLastError, not through the launch itself.
  empty_kernel<<<1, 2048>>>();
  Report("empty_kernel<<<1, 2048>>> then cudaGetLastError()", cudaGetLastError());

  int on_stack = 0;
  Report("cudaFree(stack address)", cudaFree(&on_stack));

  char source[16] = {};
  Report("cudaMemcpy(null destination)",
         cudaMemcpy(nullptr, source, sizeof(source), cudaMemcpyHostToDevice));
  // The failed copy is this thread's last error until it is read, and reading it clears it.
  Report("cudaGetLastError()", cudaGetLastError());
  Report("cudaGetLastError() again", cudaGetLastError());

  void* buffer = nullptr;
  Report("cudaMalloc(1024)", cudaMalloc(&buffer, 1024));
  Report("cudaFree(buffer)", cudaFree(buffer));
  return 3;
}
