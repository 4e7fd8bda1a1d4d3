// local_runtime_extension: a shared library that uses the runtime, as a Python extension module or
// onnxruntime's CUDA provider does. Loaded by local_runtime_host with dlopen(RTLD_LOCAL), its
// libcudart.so.13 is a dependency of a local object, outside the global scope that
// dlsym(RTLD_NEXT) searches, while its calls still bind to the preloaded hooks
// (docs/architecture.md §3.1).
//
// local_runtime_run(K): 2 cudaMalloc, 1 cudaMemcpy HtoD, K x (scale launch +
// cudaDeviceSynchronize), 1 cudaMemcpy DtoH, 2 cudaFree (tests count these). It prints each
// call's result name (deterministic, the same with and without the shim) and returns the number
// of failed calls. Its kernel is registered by nvcc's constructor during dlopen.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void scale(const float* in, float* out, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * factor;
}

namespace {

int g_failures = 0;

void Report(const char* what, cudaError_t error) {
  std::printf("%s: %s\n", what, cudaGetErrorName(error));
  if (error != cudaSuccess) ++g_failures;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int local_runtime_run(int iterations) {
  constexpr int kN = 1 << 14;
  constexpr int kBlock = 256;
  std::vector<float> host(kN, 1.0f);
  float* in = nullptr;
  float* out = nullptr;
  Report("cudaMalloc", cudaMalloc(&in, kN * sizeof(float)));
  Report("cudaMalloc", cudaMalloc(&out, kN * sizeof(float)));
  Report("cudaMemcpy", cudaMemcpy(in, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  for (int i = 0; i < iterations; ++i) {
    scale<<<(kN + kBlock - 1) / kBlock, kBlock>>>(in, out, 2.0f, kN);
    Report("launch", cudaGetLastError());
    Report("cudaDeviceSynchronize", cudaDeviceSynchronize());
  }
  Report("cudaMemcpy", cudaMemcpy(host.data(), out, kN * sizeof(float), cudaMemcpyDeviceToHost));
  Report("cudaFree", cudaFree(in));
  Report("cudaFree", cudaFree(out));
  return g_failures;
}
