// runtime12_copies: a program on the CUDA 12 runtime (the fake libcudart.so.12,
// test/fakes/cudart12; run it with the fake libcupti.so.12 on LD_LIBRARY_PATH). Runtime calls, in
// order: cudaMalloc (4096 bytes), cudaMemset, cudaMemcpy HtoD, cudaMemcpy DtoH (4096 bytes each),
// cudaFree. stdout: "runtime12_copies: ok" when every call returned cudaSuccess.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

int main() {
  std::vector<char> host(4096, 1);
  void* d = nullptr;
  int failures = 0;
  failures += cudaMalloc(&d, host.size()) != cudaSuccess;
  failures += cudaMemset(d, 0, host.size()) != cudaSuccess;
  failures += cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice) != cudaSuccess;
  failures += cudaMemcpy(host.data(), d, host.size(), cudaMemcpyDeviceToHost) != cudaSuccess;
  failures += cudaFree(d) != cudaSuccess;
  std::printf(failures ? "runtime12_copies: %d failed\n" : "runtime12_copies: ok\n", failures);
  return failures ? 1 : 0;
}
