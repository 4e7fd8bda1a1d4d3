// analyze_dtoh_sync [--efficient]: 10 steps of 3 kernels and a scalar loss.
// The mistake: the loss is read back with cudaMemcpy inside "read_loss" right
// after the step's kernels are queued (PyTorch's loss.item()), so the CPU
// waits for them every step. --efficient: each step's loss goes with
// cudaMemcpyAsync into a slot of a pinned array, read once after the loop.
#include "analyze_common.h"

using namespace analyze_program;

__global__ void step_kernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}

int main(int argc, char** argv) {
  const bool efficient = Efficient(argc, argv, "analyze_dtoh_sync");
  constexpr int kSteps = 10, kKernels = 3, kN = 4096;
  float* device = nullptr;
  float* losses = nullptr;
  Check(cudaMalloc(&device, kN * sizeof(float)), "cudaMalloc");
  Check(cudaMallocHost(&losses, kSteps * sizeof(float)), "cudaMallocHost");
  cudaStream_t stream = nullptr;
  Check(cudaStreamCreate(&stream), "cudaStreamCreate");
  float sum = 0;
  for (int i = 0; i < kSteps; ++i) {
    Step step(i);
    {
      Range range("forward");
      for (int k = 0; k < kKernels; ++k) step_kernel<<<kN / 256, 256, 0, stream>>>(device, kN);
    }
    Range range("read_loss");
    if (efficient) {
      Check(cudaMemcpyAsync(&losses[i], device, sizeof(float), cudaMemcpyDeviceToHost, stream),
            "cudaMemcpyAsync");
    } else {
      Check(cudaMemcpy(&losses[i], device, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
      sum += losses[i];
    }
  }
  Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (efficient)
    for (int i = 0; i < kSteps; ++i) sum += losses[i];
  Check(cudaFreeHost(losses), "cudaFreeHost");
  Check(cudaFree(device), "cudaFree");
  std::printf("analyze_dtoh_sync: %d steps, loss sum %.1f (%s)\n", kSteps, sum,
              efficient ? "read after the loop" : "read every step");
  return 0;
}
