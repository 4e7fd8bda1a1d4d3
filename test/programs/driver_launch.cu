// driver_launch: kernels launched through the driver API, as Triton and other JITs, and
// libraries that load their own modules, launch them. There is no runtime launch to interpose:
// only CUPTI's driver-domain callbacks see these launches (docs/architecture.md §3.1).
//
// Driver calls, in order: cuInit, cuDeviceGet, cuDevicePrimaryCtxRetain, cuCtxSetCurrent,
// cuModuleLoad, cuModuleGetFunction("scale"), cuMemAlloc, cuMemcpyHtoD, N x cuLaunchKernel,
// 1 x cuLaunchKernelEx, cuCtxSynchronize, cuMemcpyDtoH, cuMemFree, cuModuleUnload,
// cuDevicePrimaryCtxRelease (tests count these). Usage:
// driver_launch [--module PATH] [--launches N] [--runtime-sets K]
// PATH defaults to driver_kernels.fatbin next to the executable, N to 4. With K > 0, after the
// cuCtxSynchronize the program also makes K cudaMemset calls of 4096 bytes through the runtime
// and a cudaDeviceSynchronize: a program whose runtime calls a profiler interposes, around
// launches it cannot see (a library's, such as cuBLAS's or Triton's).
//
// stdout is deterministic and free of timings and pointers. Every launch doubles the data, so
// on a GPU the checksum is n * 2^(N+1); the fake driver does not execute kernels, so there it
// stays n.
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kN = 1 << 16;
constexpr unsigned kBlock = 256;

void Check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  std::fprintf(stderr, "driver_launch: %s failed: %s: %s\n", what, name != nullptr ? name : "?",
               text != nullptr ? text : "?");
  std::exit(1);
}

std::string DefaultModule() {
  char self[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  const std::string path(self, length > 0 ? static_cast<size_t>(length) : 0);
  return path.substr(0, path.rfind('/') + 1) + "driver_kernels.fatbin";
}

struct Options {
  std::string module = DefaultModule();
  int launches = 4;
  int runtime_sets = 0;
};

Options Parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--module") == 0 && i + 1 < argc) {
      options.module = argv[++i];
    } else if (std::strcmp(argv[i], "--launches") == 0 && i + 1 < argc) {
      options.launches = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--runtime-sets") == 0 && i + 1 < argc) {
      options.runtime_sets = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: driver_launch [--module PATH] [--launches N] [--runtime-sets K]\n");
      std::exit(2);
    }
  }
  if (options.launches < 0 || options.runtime_sets < 0) {
    std::fprintf(stderr, "driver_launch: launches and runtime sets must be >= 0\n");
    std::exit(2);
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = Parse(argc, argv);
  std::printf("driver_launch: n=%d launches=%d\n", kN, options.launches);

  Check(cuInit(0), "cuInit");
  CUdevice device = 0;
  Check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context = nullptr;
  Check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  Check(cuCtxSetCurrent(context), "cuCtxSetCurrent");

  CUmodule module = nullptr;
  Check(cuModuleLoad(&module, options.module.c_str()), "cuModuleLoad");
  CUfunction scale = nullptr;
  Check(cuModuleGetFunction(&scale, module, "scale"), "cuModuleGetFunction(scale)");
  std::printf("driver_launch: loaded the module and found scale\n");

  const size_t bytes = sizeof(float) * kN;
  std::vector<float> host(kN, 1.0f);
  CUdeviceptr data = 0;
  Check(cuMemAlloc(&data, bytes), "cuMemAlloc");
  Check(cuMemcpyHtoD(data, host.data(), bytes), "cuMemcpyHtoD");
  std::printf("driver_launch: copied %zu bytes to the device\n", bytes);

  const unsigned grid = (kN + kBlock - 1) / kBlock;
  float factor = 2.0f;
  int n = kN;
  void* params[] = {&data, &factor, &n};
  for (int k = 0; k < options.launches; ++k) {
    Check(cuLaunchKernel(scale, grid, 1, 1, kBlock, 1, 1, 0, nullptr, params, nullptr),
          "cuLaunchKernel(scale)");
  }
  CUlaunchConfig config{};
  config.gridDimX = grid;
  config.gridDimY = 1;
  config.gridDimZ = 1;
  config.blockDimX = kBlock;
  config.blockDimY = 1;
  config.blockDimZ = 1;
  Check(cuLaunchKernelEx(&config, scale, params, nullptr), "cuLaunchKernelEx(scale)");
  Check(cuCtxSynchronize(), "cuCtxSynchronize");
  std::printf("driver_launch: ran %d cuLaunchKernel and 1 cuLaunchKernelEx of grid=%u block=%u\n",
              options.launches, grid, kBlock);

  if (options.runtime_sets > 0) {
    for (int k = 0; k < options.runtime_sets; ++k) {
      const cudaError_t error = cudaMemset(reinterpret_cast<void*>(data), 0, 4096);
      if (error != cudaSuccess) {
        std::fprintf(stderr, "driver_launch: cudaMemset failed: %s\n", cudaGetErrorName(error));
        return 1;
      }
    }
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    std::printf("driver_launch: made %d cudaMemset calls through the runtime\n",
                options.runtime_sets);
  }

  Check(cuMemcpyDtoH(host.data(), data, bytes), "cuMemcpyDtoH");
  double checksum = 0.0;
  for (const float value : host) checksum += value;
  std::printf("driver_launch: copied the data to the host, checksum=%.1f\n", checksum);

  Check(cuMemFree(data), "cuMemFree");
  Check(cuModuleUnload(module), "cuModuleUnload");
  Check(cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
  std::printf("driver_launch: released the module and the context\n");
  return 0;
}
