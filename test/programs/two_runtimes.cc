// two_runtimes: a process with two CUDA runtimes, as a cu12 PyTorch wheel beside an extension
// built with CUDA 13: this program uses libcudart.so.13, and dlopen()s runtime12_extension
// (RTLD_LOCAL, as Python imports it), which uses libcudart.so.12. Each side checks that its hooked
// calls reached its own runtime (see runtime12_extension.cc).
// Usage: two_runtimes EXTENSION.so
// stdout: one line per side, then "failures=N"; exit status 0, or 1 when a side failed.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: two_runtimes EXTENSION.so\n");
    return 2;
  }
  int failures = 0;
  int version = 0;
  cudaRuntimeGetVersion(&version);
  size_t free_before = 0, free_after = 0, total = 0;
  cudaMemGetInfo(&free_before, &total);
  void* p = nullptr;
  const cudaError_t malloc_result = cudaMalloc(&p, 2 << 20);
  cudaMemGetInfo(&free_after, &total);
  const bool ok = malloc_result == cudaSuccess && free_before - free_after == (2u << 20) &&
                  cudaFree(p) == cudaSuccess;
  std::printf("two_runtimes: runtime %d, cudaMalloc %d, own memory %s\n", version,
              static_cast<int>(malloc_result), ok ? "used" : "NOT used");
  failures += ok ? 0 : 1;
  std::fflush(stdout);
  void* extension = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!extension) {
    std::fprintf(stderr, "two_runtimes: %s\n", dlerror());
    return 2;
  }
  auto check = reinterpret_cast<int (*)()>(dlsym(extension, "runtime12_check"));
  if (!check) return 2;
  failures += check();
  std::printf("failures=%d\n", failures);
  return failures == 0 ? 0 : 1;
}
