// nvtx_ranges: NVTX annotations (header-only NVTX3; the tool named by NVTX_INJECTION64_PATH
// receives them) around CUDA work on several threads, including the awkward cases: a range
// started on one thread and ended on another, an unbalanced pop, a range left open at exit, marks,
// a domain with a registered string and a named category, named threads. Tests count exactly
// what happens where, so this comment is the contract:
//
// B = 1 MiB. Kernel `scale` (grid 1024, block 256). "x N" is the number of calls.
//   main thread (nvtxNameOsThreadA "main thread"):
//     nvtxNameCategoryA(1, "setup phase"); nvtxMarkA("begin")
//     push "main" {
//       push "setup" (nvtxRangePushEx: ASCII message, category 1) {
//         cudaMalloc x1 (B), cudaMemset x1 (B)
//       }
//       start "handoff" (nvtxRangeStartA; ended by thread "finisher", see below)
//       3 worker threads run at once and are joined; each, named "worker 0".."worker 2":
//         push "worker" {
//           cudaMalloc x1 (B)
//           push "copy_in" { cudaMemcpy HtoD x1 (B) }
//           push "compute" {
//             scale launch x2
//             push "inner" { scale launch x1, cudaDeviceSynchronize x1 }
//           }
//           push "copy_out" { cudaMemcpy DtoH x1 (B) }
//           cudaFree x1
//         }
//         nvtxMarkA("worker done")
//       thread "finisher" (not named): nvtxRangeEnd("handoff"); no CUDA calls. Joined.
//       domain "gprof.test" (nvtxDomainCreateA):
//         nvtxDomainRangePushEx, message = nvtxDomainRegisterStringA("registered range") {
//           cudaMemcpy HtoD x1 (B)
//           nvtxDomainRangePushEx, ASCII "domain ascii", category 2
//               (nvtxDomainNameCategoryA(domain, 2, "domain category")) {
//             scale launch x1
//           }
//         }  (both popped with nvtxDomainRangePop)
//       cudaFree x1 (the setup buffer)
//     }
//     nvtxRangePop() x1 with nothing open: unbalanced
//     push "left open" { cudaDeviceSynchronize x1 }, never popped; then return 0.
//
// Totals: 9 + 1 = 10 launches; cudaMemcpy x7 (4 HtoD, 3 DtoH), cudaMemset x1, cudaMalloc x4,
// cudaFree x4, cudaDeviceSynchronize x4. stdout is deterministic (printed by the main thread).
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

__global__ void scale(float* x, float f, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}

namespace {

constexpr int kWorkers = 3;
constexpr size_t kBytes = size_t{1} << 20;
constexpr int kN = static_cast<int>(kBytes / sizeof(float));
constexpr int kBlock = 256;
constexpr int kGrid = (kN + kBlock - 1) / kBlock;

void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "nvtx_ranges: %s failed: %s\n", what, cudaGetErrorName(error));
  std::exit(1);
}

uint32_t ThreadId() {
  return static_cast<uint32_t>(syscall(SYS_gettid));
}

void Worker(int index) {
  const std::string name = "worker " + std::to_string(index);
  nvtxNameOsThreadA(ThreadId(), name.c_str());
  std::vector<float> host(kN, 1.0f);
  nvtxRangePushA("worker");
  float* device = nullptr;
  Check(cudaMalloc(&device, kBytes), "cudaMalloc");
  nvtxRangePushA("copy_in");
  Check(cudaMemcpy(device, host.data(), kBytes, cudaMemcpyHostToDevice), "cudaMemcpy HtoD");
  nvtxRangePop();
  nvtxRangePushA("compute");
  scale<<<kGrid, kBlock>>>(device, 2.0f, kN);
  scale<<<kGrid, kBlock>>>(device, 0.5f, kN);
  nvtxRangePushA("inner");
  scale<<<kGrid, kBlock>>>(device, 1.0f, kN);
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  nvtxRangePop();
  nvtxRangePop();
  nvtxRangePushA("copy_out");
  Check(cudaMemcpy(host.data(), device, kBytes, cudaMemcpyDeviceToHost), "cudaMemcpy DtoH");
  nvtxRangePop();
  Check(cudaFree(device), "cudaFree");
  nvtxRangePop();
  nvtxMarkA("worker done");
}

nvtxEventAttributes_t Attributes() {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

void DomainWork(float* device, const std::vector<float>& host) {
  nvtxDomainHandle_t domain = nvtxDomainCreateA("gprof.test");
  nvtxDomainNameCategoryA(domain, 2, "domain category");
  nvtxEventAttributes_t registered = Attributes();
  registered.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  registered.message.registered = nvtxDomainRegisterStringA(domain, "registered range");
  nvtxDomainRangePushEx(domain, &registered);
  Check(cudaMemcpy(device, host.data(), kBytes, cudaMemcpyHostToDevice), "cudaMemcpy HtoD");
  nvtxEventAttributes_t ascii = Attributes();
  ascii.messageType = NVTX_MESSAGE_TYPE_ASCII;
  ascii.message.ascii = "domain ascii";
  ascii.category = 2;
  nvtxDomainRangePushEx(domain, &ascii);
  scale<<<kGrid, kBlock>>>(device, 3.0f, kN);
  nvtxDomainRangePop(domain);
  nvtxDomainRangePop(domain);
}

}  // namespace

int main() {
  nvtxNameOsThreadA(ThreadId(), "main thread");
  nvtxNameCategoryA(1, "setup phase");
  nvtxMarkA("begin");
  nvtxRangePushA("main");

  nvtxEventAttributes_t setup = Attributes();
  setup.messageType = NVTX_MESSAGE_TYPE_ASCII;
  setup.message.ascii = "setup";
  setup.category = 1;
  nvtxRangePushEx(&setup);
  float* shared = nullptr;
  Check(cudaMalloc(&shared, kBytes), "cudaMalloc");
  Check(cudaMemset(shared, 0, kBytes), "cudaMemset");
  nvtxRangePop();

  const nvtxRangeId_t handoff = nvtxRangeStartA("handoff");
  std::vector<std::thread> workers;
  for (int i = 0; i < kWorkers; ++i) workers.emplace_back(Worker, i);
  for (std::thread& t : workers) t.join();
  std::printf("nvtx_ranges: %d workers done\n", kWorkers);
  std::thread finisher([handoff] { nvtxRangeEnd(handoff); });
  finisher.join();
  std::printf("nvtx_ranges: handoff range ended on another thread\n");

  DomainWork(shared, std::vector<float>(kN, 1.0f));
  std::printf("nvtx_ranges: domain ranges done\n");
  Check(cudaFree(shared), "cudaFree");
  nvtxRangePop();  // "main"

  nvtxRangePop();  // unbalanced: nothing is open on this thread
  nvtxRangePushA("left open");
  Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::printf("nvtx_ranges: exiting with a range open\n");
  return 0;
}
