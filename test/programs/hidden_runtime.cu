// hidden_runtime: what a program linked with the static runtime (nvcc's default) looks like to a
// profiler that interposes symbols. Its kernel is compiled and registered the usual way, but every
// runtime call it makes at run time goes through function pointers from
// dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL) + dlsym, which LD_PRELOAD cannot interpose, as
// it cannot interpose a runtime linked into the executable. Only CUPTI's runtime- and
// driver-domain callbacks see these calls (docs/architecture.md §3.1).
//
// Runtime calls, in order: 2 cudaMalloc, 1 cudaMemcpy HtoD, K x (cudaLaunchKernel of `scale` +
// cudaDeviceSynchronize), 1 cudaMemcpy DtoH, 2 cudaFree (tests count these). Usage:
// hidden_runtime [--iterations K]   (K defaults to 5)
//
// stdout is deterministic and free of timings and pointers. The checksum depends on the runtime:
// the fake runtime does not execute kernels, so there it is the sum of zeros.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void scale(const float* in, float* out, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * factor;
}

namespace {

constexpr int kN = 1 << 16;
constexpr int kBlock = 256;

// The runtime as the program reaches it: looked up by name, never linked.
struct Runtime {
  cudaError_t (*malloc)(void**, size_t) = nullptr;
  cudaError_t (*free)(void*) = nullptr;
  cudaError_t (*memcpy)(void*, const void*, size_t, cudaMemcpyKind) = nullptr;
  cudaError_t (*launch_kernel)(const void*, dim3, dim3, void**, size_t, cudaStream_t) = nullptr;
  cudaError_t (*device_synchronize)() = nullptr;
  const char* (*get_error_name)(cudaError_t) = nullptr;
  const char* (*get_error_string)(cudaError_t) = nullptr;
};

template <typename Function>
void Bind(void* library, const char* name, Function* out) {
  *out = reinterpret_cast<Function>(dlsym(library, name));
  if (*out != nullptr) return;
  std::fprintf(stderr, "hidden_runtime: %s not found in libcudart.so.13\n", name);
  std::exit(1);
}

Runtime Load() {
  void* library = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "hidden_runtime: %s\n", dlerror());
    std::exit(1);
  }
  Runtime runtime;
  Bind(library, "cudaMalloc", &runtime.malloc);
  Bind(library, "cudaFree", &runtime.free);
  Bind(library, "cudaMemcpy", &runtime.memcpy);
  Bind(library, "cudaLaunchKernel", &runtime.launch_kernel);
  Bind(library, "cudaDeviceSynchronize", &runtime.device_synchronize);
  Bind(library, "cudaGetErrorName", &runtime.get_error_name);
  Bind(library, "cudaGetErrorString", &runtime.get_error_string);
  return runtime;
}

const Runtime& Cuda() {
  static const Runtime runtime = Load();
  return runtime;
}

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "hidden_runtime: %s failed: %s: %s\n", what, Cuda().get_error_name(error),
               Cuda().get_error_string(error));
  std::exit(1);
}

int ParseIterations(int argc, char** argv) {
  int iterations = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) {
      iterations = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: hidden_runtime [--iterations K]\n");
      std::exit(2);
    }
  }
  if (iterations < 0) {
    std::fprintf(stderr, "hidden_runtime: iterations must be >= 0\n");
    std::exit(2);
  }
  return iterations;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = ParseIterations(argc, argv);
  const Runtime& cuda = Cuda();
  const size_t bytes = sizeof(float) * kN;
  std::printf("hidden_runtime: n=%d iterations=%d\n", kN, iterations);

  std::vector<float> host(kN);
  for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i % 100);

  float *d_in = nullptr, *d_out = nullptr;
  Check(cuda.malloc(reinterpret_cast<void**>(&d_in), bytes), "cudaMalloc(in)");
  Check(cuda.malloc(reinterpret_cast<void**>(&d_out), bytes), "cudaMalloc(out)");
  std::printf("hidden_runtime: allocated 2 device buffers of %zu bytes\n", bytes);

  Check(cuda.memcpy(d_in, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy(in)");
  std::printf("hidden_runtime: copied the input to the device\n");

  const int grid = (kN + kBlock - 1) / kBlock;
  float factor = 2.0f;
  int n = kN;
  void* args[] = {&d_in, &d_out, &factor, &n};
  for (int k = 0; k < iterations; ++k) {
    Check(cuda.launch_kernel(reinterpret_cast<const void*>(scale), dim3(grid), dim3(kBlock), args,
                             0, nullptr),
          "cudaLaunchKernel(scale)");
    Check(cuda.device_synchronize(), "cudaDeviceSynchronize");
  }
  std::printf("hidden_runtime: ran %d launches of grid=%d block=%d\n", iterations, grid, kBlock);

  Check(cuda.memcpy(host.data(), d_out, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy(out)");
  double checksum = 0.0;
  for (const float value : host) checksum += value;
  std::printf("hidden_runtime: copied the output to the host, checksum=%.1f\n", checksum);

  Check(cuda.free(d_in), "cudaFree(in)");
  Check(cuda.free(d_out), "cudaFree(out)");
  std::printf("hidden_runtime: freed 2 device buffers\n");
  return 0;
}
