// analyze_pageable_memcpy [--efficient]: each of 20 steps copies a 256 KiB
// batch to the device inside "data_loader" and runs a kernel on it. The
// mistake: the batch lives in pageable memory (a std::vector), so the copy is
// staged by the driver and cannot overlap. --efficient: the batch is pinned
// (cudaMallocHost) and copied with cudaMemcpyAsync on a stream.
#include <vector>

#include "analyze_common.h"

using namespace analyze_program;

__global__ void train_kernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 0.5f;
}

int main(int argc, char** argv) {
  const bool efficient = Efficient(argc, argv, "analyze_pageable_memcpy");
  constexpr int kSteps = 20, kN = 65536;
  constexpr size_t kBytes = kN * sizeof(float);
  float* device = nullptr;
  Check(cudaMalloc(&device, kBytes), "cudaMalloc");
  cudaStream_t stream = nullptr;
  Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  std::vector<float> pageable(kN, 1.0f);
  float* pinned = nullptr;
  if (efficient) Check(cudaMallocHost(&pinned, kBytes), "cudaMallocHost");
  float* batch = efficient ? pinned : pageable.data();
  for (int i = 0; i < kSteps; ++i) {
    Step step(i);
    {
      Range range("data_loader");
      Check(cudaMemcpyAsync(device, batch, kBytes, cudaMemcpyHostToDevice, stream),
            "cudaMemcpyAsync");
    }
    Range range("forward");
    train_kernel<<<kN / 256, 256, 0, stream>>>(device, kN);
  }
  Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (pinned) Check(cudaFreeHost(pinned), "cudaFreeHost");
  Check(cudaFree(device), "cudaFree");
  std::printf("analyze_pageable_memcpy: %d steps (%s)\n", kSteps,
              efficient ? "pinned" : "pageable");
  return 0;
}
