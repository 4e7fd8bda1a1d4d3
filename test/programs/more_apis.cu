// more_apis: the APIs added with the one API table (issue 14): a cooperative launch, a 3D copy
// and a batch of copies. Counts the tests read:
//   cudaLaunchCooperativeKernel x1 (`coop`, grid 2, block 64)
//   cudaMemcpy3D x1: host to device, extent 64 bytes x 4 rows x 2 slices = 512 bytes
//   cudaMemcpyBatchAsync x1 on a created stream: 3 host-to-device copies of 100, 200, 300 bytes
// stdout: "more_apis: ok" when every call returned cudaSuccess.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void coop(int* p) {
  p[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

int main() {
  int failures = 0;
  auto check = [&](cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
      std::printf("more_apis: %s failed: %d\n", what, static_cast<int>(e));
      ++failures;
    }
  };
  int* d = nullptr;
  check(cudaMalloc(&d, 4096), "cudaMalloc");
  void* args[] = {&d};
  check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&coop), dim3(2), dim3(64), args,
                                    0, nullptr),
        "cudaLaunchCooperativeKernel");

  std::vector<char> host(4096, 7);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(host.data(), 64, 64, 4);
  p.dstPtr = make_cudaPitchedPtr(d, 64, 64, 4);
  p.extent = make_cudaExtent(64, 4, 2);
  p.kind = cudaMemcpyHostToDevice;
  check(cudaMemcpy3D(&p), "cudaMemcpy3D");

  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  char* dst = reinterpret_cast<char*>(d) + 1024;
  void* dsts[] = {dst, dst + 100, dst + 300};
  const void* srcs[] = {host.data(), host.data() + 100, host.data() + 300};
  size_t sizes[] = {100, 200, 300};
  cudaMemcpyAttributes attrs = {};
  attrs.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  size_t attrs_idxs[] = {0};
  check(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attrs, attrs_idxs, 1, stream),
        "cudaMemcpyBatchAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (failures == 0) std::printf("more_apis: ok\n");
  return failures == 0 ? 0 : 1;
}
