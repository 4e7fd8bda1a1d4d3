// analyze_gpu_idle [--efficient]: 8 steps, each loading a batch on the CPU
// and running 3 kernels on it. The mistake: the batch is prepared inside
// "data_loader" at the start of every step (5 ms of host work) while the GPU
// has nothing queued: the seed's DataLoader stall. --efficient: the batches
// are prepared once before the loop (a cached dataset), and the steps run
// back to back on the GPU.
#include <unistd.h>

#include "analyze_common.h"

using namespace analyze_program;

__global__ void compute(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 2.0f;
}

namespace {

// Reading and decoding a batch: mostly waiting for storage, as loaders do.
void LoadBatch() {
  usleep(5000);
}

}  // namespace

int main(int argc, char** argv) {
  const bool efficient = Efficient(argc, argv, "analyze_gpu_idle");
  constexpr int kSteps = 8, kKernels = 3, kN = 4096;
  float* device = nullptr;
  Check(cudaMalloc(&device, kN * sizeof(float)), "cudaMalloc");
  if (efficient) {
    Range range("data_loader");
    for (int i = 0; i < kSteps; ++i) LoadBatch();
  }
  for (int i = 0; i < kSteps; ++i) {
    Step step(i);
    if (!efficient) {
      Range range("data_loader");
      LoadBatch();
    }
    Range range("forward");
    for (int k = 0; k < kKernels; ++k) compute<<<kN / 256, 256>>>(device, kN);
  }
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  Check(cudaFree(device), "cudaFree");
  std::printf("analyze_gpu_idle: %d steps (%s)\n", kSteps,
              efficient ? "cached" : "loaded each step");
  return 0;
}
