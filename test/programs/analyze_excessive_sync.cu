// analyze_excessive_sync [--efficient]: 10 steps of 5 layers, a kernel each.
// The mistake: cudaStreamSynchronize after every layer, inside
// "layer_sync", as a debugging leftover would. --efficient: the loop queues
// everything and synchronizes once at the end.
//
// Each layer does enough work (tens of microseconds on an H200) that the
// queued loop keeps the GPU ahead of its launches: with one multiply-add per
// element of 4096, the efficient loop was launch-bound on a real GPU (H200,
// driver 580.159.04, 2026-11-29: analyze found launch-bound there).
#include "analyze_common.h"

using namespace analyze_program;

__global__ void layer(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < 4096; ++k) v = v * 0.9f + 0.1f;
  x[i] = v;
}

int main(int argc, char** argv) {
  const bool efficient = Efficient(argc, argv, "analyze_excessive_sync");
  constexpr int kSteps = 10, kLayers = 5, kN = 1 << 20;
  float* device = nullptr;
  Check(cudaMalloc(&device, kN * sizeof(float)), "cudaMalloc");
  cudaStream_t stream = nullptr;
  Check(cudaStreamCreate(&stream), "cudaStreamCreate");
  for (int i = 0; i < kSteps; ++i) {
    Step step(i);
    for (int l = 0; l < kLayers; ++l) {
      {
        Range range("forward");
        layer<<<kN / 256, 256, 0, stream>>>(device, kN);
      }
      if (!efficient) {
        Range range("layer_sync");
        Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      }
    }
  }
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  Check(cudaFree(device), "cudaFree");
  std::printf("analyze_excessive_sync: %d steps (%s)\n", kSteps,
              efficient ? "one sync" : "a sync per layer");
  return 0;
}
