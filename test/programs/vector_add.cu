// vector_add: the classic first CUDA program, as a profiling target with a known shape. Runtime
// calls, in order: 3 cudaMalloc, 2 cudaMemcpy HtoD, K x (vector_add launch +
// cudaDeviceSynchronize), 1 cudaGetLastError, 1 cudaMemcpy DtoH, 1 cudaMemset, 3 cudaFree (tests
// count these). Usage: vector_add [--iterations K]   (K defaults to 10)
//
// stdout is deterministic and free of timings and pointers. The checksum depends on the runtime:
// the fake runtime does not execute kernels, so there it is the sum of zeros.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// At namespace scope, as most users write it: its name is the same in every build.
__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

namespace {

constexpr int kN = 1 << 20;
constexpr int kBlock = 256;

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "vector_add: %s failed: %s: %s\n", what, cudaGetErrorName(error),
               cudaGetErrorString(error));
  std::exit(1);
}

int ParseIterations(int argc, char** argv) {
  int iterations = 10;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
      iterations = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: vector_add [--iterations K]\n");
      std::exit(2);
    }
  }
  if (iterations < 0) {
    std::fprintf(stderr, "vector_add: iterations must be >= 0\n");
    std::exit(2);
  }
  return iterations;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = ParseIterations(argc, argv);
  const size_t bytes = sizeof(float) * kN;
  std::printf("vector_add: n=%d iterations=%d\n", kN, iterations);

  std::vector<float> a(kN), b(kN), c(kN, -1.0f);
  for (int i = 0; i < kN; ++i) {
    a[i] = static_cast<float>(i % 1000) * 0.5f;
    b[i] = 1.0f;
  }

  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  Check(cudaMalloc(&d_a, bytes), "cudaMalloc(a)");
  Check(cudaMalloc(&d_b, bytes), "cudaMalloc(b)");
  Check(cudaMalloc(&d_c, bytes), "cudaMalloc(c)");
  std::printf("vector_add: allocated 3 device buffers of %zu bytes\n", bytes);

  Check(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(a)");
  Check(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(b)");
  std::printf("vector_add: copied 2 inputs to the device\n");

  const int grid = (kN + kBlock - 1) / kBlock;
  for (int k = 0; k < iterations; ++k) {
    vector_add<<<grid, kBlock>>>(d_a, d_b, d_c, kN);
    Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  Check(cudaGetLastError(), "vector_add launch");
  std::printf("vector_add: ran %d launches of grid=%d block=%d\n", iterations, grid, kBlock);

  Check(cudaMemcpy(c.data(), d_c, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(c)");
  double checksum = 0.0;
  for (const float value : c) checksum += value;
  std::printf("vector_add: copied the output to the host, checksum=%.1f\n", checksum);

  Check(cudaMemset(d_c, 0, bytes), "cudaMemset(c)");
  std::printf("vector_add: cleared the output buffer\n");

  Check(cudaFree(d_a), "cudaFree(a)");
  Check(cudaFree(d_b), "cudaFree(b)");
  Check(cudaFree(d_c), "cudaFree(c)");
  std::printf("vector_add: freed 3 device buffers\n");
  return 0;
}
