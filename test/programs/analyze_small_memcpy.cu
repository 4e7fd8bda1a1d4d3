// analyze_small_memcpy [--efficient]: each of 5 steps uploads 20 parameters
// of 1 KiB and runs a kernel. The mistake: one cudaMemcpyAsync per parameter
// inside "upload_params" (100 small copies). --efficient: the parameters sit
// in one pinned buffer and go up in one 20 KiB copy per step.
#include "analyze_common.h"

using namespace analyze_program;

__global__ void apply_params(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

int main(int argc, char** argv) {
  const bool efficient = Efficient(argc, argv, "analyze_small_memcpy");
  constexpr int kSteps = 5, kParams = 20, kN = 256;  // 1 KiB of floats each
  constexpr size_t kBytes = kN * sizeof(float);
  float* device = nullptr;
  float* host = nullptr;
  Check(cudaMalloc(&device, kBytes * kParams), "cudaMalloc");
  Check(cudaMallocHost(&host, kBytes * kParams), "cudaMallocHost");
  cudaStream_t stream = nullptr;
  Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  for (int i = 0; i < kSteps; ++i) {
    Step step(i);
    {
      Range range("upload_params");
      if (efficient) {
        Check(cudaMemcpyAsync(device, host, kBytes * kParams, cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync");
      } else {
        for (int p = 0; p < kParams; ++p)
          Check(cudaMemcpyAsync(device + p * kN, host + p * kN, kBytes, cudaMemcpyHostToDevice,
                                stream),
                "cudaMemcpyAsync");
      }
    }
    Range range("forward");
    apply_params<<<kParams, kN, 0, stream>>>(device, kN * kParams);
  }
  Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  Check(cudaFreeHost(host), "cudaFreeHost");
  Check(cudaFree(device), "cudaFree");
  std::printf("analyze_small_memcpy: %d steps (%s)\n", kSteps,
              efficient ? "batched" : "one copy each");
  return 0;
}
