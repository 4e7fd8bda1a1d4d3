// diff_workload: a small training-like loop whose shape `gpuprof diff` tests change from the
// command line (test/e2e/test_diff.py). Per step: matmul, relu and scale launches, then
// cudaDeviceSynchronize; before the loop 2 mallocs and 1 HtoD copy, after it 1 DtoH copy and 2
// frees. On the fake runtime, kernel times come from GPROF_FAKE_KERNEL_NS and
// GPROF_FAKE_KERNEL_NS_OVERRIDE (e.g. "matmul=40000" for a matmul twice as slow).
// Usage: diff_workload [--steps N] [--extra-copy] [--no-relu]
//   --extra-copy: each step also copies the activations back to pageable host memory
//   --no-relu: the relu launches are left out
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void matmul(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

__global__ void relu(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && data[i] < 0) data[i] = 0;
}

__global__ void scale(float* data, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

namespace {

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "diff_workload: %s failed: %s\n", what, cudaGetErrorName(error));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 5;
  bool extra_copy = false;
  bool with_relu = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--extra-copy") == 0) {
      extra_copy = true;
    } else if (std::strcmp(argv[i], "--no-relu") == 0) {
      with_relu = false;
    } else {
      std::fprintf(stderr, "usage: diff_workload [--steps N] [--extra-copy] [--no-relu]\n");
      return 2;
    }
  }
  constexpr int kN = 1 << 16;
  constexpr size_t kBytes = kN * sizeof(float);
  std::vector<float> host(kN, 1.0f);
  float* in = nullptr;
  float* out = nullptr;
  Check(cudaMalloc(&in, kBytes), "cudaMalloc");
  Check(cudaMalloc(&out, kBytes), "cudaMalloc");
  Check(cudaMemcpy(in, host.data(), kBytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  const int blocks = (kN + 255) / 256;
  for (int step = 0; step < steps; ++step) {
    matmul<<<blocks, 256>>>(out, in, kN);
    Check(cudaGetLastError(), "matmul launch");
    if (with_relu) {
      relu<<<blocks, 256>>>(out, kN);
      Check(cudaGetLastError(), "relu launch");
    }
    scale<<<blocks, 256>>>(out, 0.5f, kN);
    Check(cudaGetLastError(), "scale launch");
    if (extra_copy)
      Check(cudaMemcpy(host.data(), out, kBytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  Check(cudaMemcpy(host.data(), out, kBytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  Check(cudaFree(in), "cudaFree");
  Check(cudaFree(out), "cudaFree");
  std::printf("diff_workload: %d steps\n", steps);
  return 0;
}
