// graph_launch: captures 4 kernel launches on a stream into a CUDA graph, instantiates it and
// launches it 5 times, then synchronizes: one graph launch stands for 4 GPU kernels that share
// its correlation id.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kCapturedKernels = 4;
constexpr int kGraphLaunches = 5;
constexpr int kElements = 1 << 16;
constexpr int kBlock = 256;

__global__ void scale_add(float* data, int n, float scale, float offset) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * scale + offset;
}

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "graph_launch: %s failed: %s: %s\n", what, cudaGetErrorName(error),
               cudaGetErrorString(error));
  std::exit(1);
}

}  // namespace

int main() {
  cudaStream_t stream = nullptr;
  float* data = nullptr;
  Check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  Check(cudaMalloc(&data, sizeof(float) * kElements), "cudaMalloc");

  Check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  const int grid = (kElements + kBlock - 1) / kBlock;
  for (int k = 0; k < kCapturedKernels; ++k) {
    scale_add<<<grid, kBlock, 0, stream>>>(data, kElements, 0.5f, static_cast<float>(k));
  }
  cudaGraph_t graph = nullptr;
  Check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  Check(cudaGetLastError(), "scale_add launch");

  cudaGraphExec_t exec = nullptr;
  Check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  for (int i = 0; i < kGraphLaunches; ++i) Check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
  Check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::printf("graph_launch: captured %d kernels, launched the graph %d times\n", kCapturedKernels,
              kGraphLaunches);

  Check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  Check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  Check(cudaFree(data), "cudaFree");
  Check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return 0;
}
