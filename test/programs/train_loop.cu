// train_loop: the shape of a training loop as torch.profiler users annotate it, for step ranges,
// per-step throughput and capture windows. Usage:
//   train_loop [--steps K] [--profiler-window A:B]      (K defaults to 6; 0 <= A <= B <= K)
//
// Setup: cudaMalloc x3 (weights, activations, gradients, 64 KiB each), cudaMemcpy HtoD x1 (the
// weights, 64 KiB). Then for step i = 0 .. K-1:
//   [cudaProfilerStart() when i == A, before the step's range]
//   push "ProfilerStep#i" {
//     push "forward"  { linear_forward launch, relu_forward launch }
//     push "backward" { relu_backward launch, linear_backward launch, sgd_update launch,
//                       cudaMemcpyAsync DtoD x1 (4 KiB of gradients into the weights' head) }
//     cudaDeviceSynchronize x1
//   }
//   [cudaProfilerStop() when i == B - 1, after the step's range]
// Teardown: cudaMemcpy DtoH x1 (4 KiB), cudaFree x3. Every kernel runs grid 64, block 256.
// With --profiler-window A:A there are no profiler calls at all.
//
// stdout is deterministic: one line per step and a summary.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

__global__ void linear_forward(float* out, const float* w, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = w[i] * 2.0f;
}
__global__ void relu_forward(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] < 0.0f) x[i] = 0.0f;
}
__global__ void relu_backward(float* grad, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] <= 0.0f) grad[i] = 0.0f;
}
__global__ void linear_backward(float* grad, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) grad[i] = x[i] * 0.5f;
}
__global__ void sgd_update(float* w, const float* grad, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.01f * grad[i];
}

namespace {

constexpr int kN = 16384;  // 64 KiB of floats
constexpr size_t kBytes = kN * sizeof(float);
constexpr size_t kCopyBytes = 4096;
constexpr int kBlock = 256;
constexpr int kGrid = kN / kBlock;

struct Options {
  int steps = 6;
  int window_begin = -1;  // no profiler calls
  int window_end = -1;
};

void Usage() {
  std::fprintf(stderr, "usage: train_loop [--steps K] [--profiler-window A:B]\n");
  std::exit(2);
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      o.steps = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--profiler-window") == 0 && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%d:%d", &o.window_begin, &o.window_end) != 2) Usage();
    } else {
      Usage();
    }
  }
  const bool window = o.window_begin >= 0 || o.window_end >= 0;
  if (o.steps < 0 ||
      (window && (o.window_begin < 0 || o.window_begin > o.window_end || o.window_end > o.steps)))
    Usage();
  return o;
}

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "train_loop: %s failed: %s\n", what, cudaGetErrorName(error));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = Parse(argc, argv);
  const bool window = o.window_begin >= 0 && o.window_begin < o.window_end;
  std::printf("train_loop: steps=%d", o.steps);
  if (window) std::printf(" profiler window [%d, %d)", o.window_begin, o.window_end);
  std::printf("\n");

  float *weights = nullptr, *activations = nullptr, *grads = nullptr;
  Check(cudaMalloc(&weights, kBytes), "cudaMalloc");
  Check(cudaMalloc(&activations, kBytes), "cudaMalloc");
  Check(cudaMalloc(&grads, kBytes), "cudaMalloc");
  const std::vector<float> init(kN, 0.25f);
  Check(cudaMemcpy(weights, init.data(), kBytes, cudaMemcpyHostToDevice), "cudaMemcpy");

  for (int step = 0; step < o.steps; ++step) {
    if (window && step == o.window_begin) Check(cudaProfilerStart(), "cudaProfilerStart");
    const std::string name = "ProfilerStep#" + std::to_string(step);
    nvtxRangePushA(name.c_str());
    nvtxRangePushA("forward");
    linear_forward<<<kGrid, kBlock>>>(activations, weights, kN);
    relu_forward<<<kGrid, kBlock>>>(activations, kN);
    nvtxRangePop();
    nvtxRangePushA("backward");
    relu_backward<<<kGrid, kBlock>>>(grads, activations, kN);
    linear_backward<<<kGrid, kBlock>>>(grads, activations, kN);
    sgd_update<<<kGrid, kBlock>>>(weights, grads, kN);
    Check(cudaMemcpyAsync(weights, grads, kCopyBytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
    nvtxRangePop();
    Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    nvtxRangePop();
    if (window && step == o.window_end - 1) Check(cudaProfilerStop(), "cudaProfilerStop");
    std::printf("train_loop: step %d done\n", step);
  }

  std::vector<float> head(kCopyBytes / sizeof(float));
  Check(cudaMemcpy(head.data(), weights, kCopyBytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  Check(cudaFree(weights), "cudaFree");
  Check(cudaFree(activations), "cudaFree");
  Check(cudaFree(grads), "cudaFree");
  std::printf("train_loop: %d steps, %d kernel launches\n", o.steps, o.steps * 5);
  return 0;
}
