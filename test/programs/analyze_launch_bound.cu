// analyze_launch_bound [--efficient]: 5 steps of 40 elementwise ops. The
// mistake: one tiny kernel per op inside "elementwise_ops", each after a bit
// of host work (an eager framework's per-op overhead), so the GPU finishes
// each kernel long before the next is launched. --efficient: one fused
// kernel per step does the 40 ops.
#include "analyze_common.h"

using namespace analyze_program;

__global__ void tiny_op(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void fused_ops(float* x, int n, int ops) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += static_cast<float>(ops);
}

int main(int argc, char** argv) {
  const bool efficient = Efficient(argc, argv, "analyze_launch_bound");
  constexpr int kSteps = 5, kOps = 40, kN = 1024, kOverheadUs = 20;
  float* device = nullptr;
  Check(cudaMalloc(&device, kN * sizeof(float)), "cudaMalloc");
  for (int i = 0; i < kSteps; ++i) {
    Step step(i);
    Range range("elementwise_ops");
    if (efficient) {
      fused_ops<<<kN / 256, 256>>>(device, kN, kOps);
      continue;
    }
    for (int op = 0; op < kOps; ++op) {
      HostWork(kOverheadUs);
      tiny_op<<<kN / 256, 256>>>(device, kN);
    }
  }
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  Check(cudaFree(device), "cudaFree");
  std::printf("analyze_launch_bound: %d steps (%s)\n", kSteps,
              efficient ? "fused" : "one kernel per op");
  return 0;
}
