// runtime12_extension: a library linked against libcudart.so.12 (the fake one built as CUDA 12's,
// test/fakes/cudart12), loaded by two_runtimes beside CUDA 13's runtime. Its check tells which
// runtime served its hooked calls: cudaMalloc (hooked) must take memory from its own runtime,
// which cudaMemGetInfo (not hooked: always its own runtime) then shows.
#include <cuda_runtime_api.h>

#include <cstdio>

extern "C" __attribute__((visibility("default"))) int runtime12_check() {
  int version = 0;
  cudaRuntimeGetVersion(&version);
  size_t free_before = 0, free_after = 0, total = 0;
  cudaMemGetInfo(&free_before, &total);
  void* p = nullptr;
  const cudaError_t malloc_result = cudaMalloc(&p, 1 << 20);
  const cudaError_t memset_result = cudaMemset(p, 0, 1 << 20);
  cudaMemGetInfo(&free_after, &total);
  const cudaError_t free_result = cudaFree(p);
  const bool ok = malloc_result == cudaSuccess && memset_result == cudaSuccess &&
                  free_result == cudaSuccess && free_before - free_after == (1u << 20);
  std::printf(
      "runtime12_extension: runtime %d, cudaMalloc %d, cudaMemset %d, cudaFree %d, "
      "own memory %s\n",
      version, static_cast<int>(malloc_result), static_cast<int>(memset_result),
      static_cast<int>(free_result), ok ? "used" : "NOT used");
  return ok ? 0 : 1;
}
