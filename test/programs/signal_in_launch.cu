// signal_in_launch: records made on a thread while its launch is still inside the runtime. A
// SIGUSR1 handler pushes and pops an NVTX range; run with GPROF_FAKE_SIGNAL_IN_LAUNCH=10 the fake
// runtime raises SIGUSR1 inside every launch (test/fakes/cudart/config.h), so each launch's record
// is claimed before the handler's records and finished after them.
// Usage: signal_in_launch N   (N <<<>>> launches of `tick` inside the range "launches")
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

__global__ void tick(int* p) {
  p[threadIdx.x] += 1;
}

namespace {
volatile std::sig_atomic_t g_handled = 0;

void on_signal(int) {
  nvtxRangePushA("in handler");
  nvtxRangePop();
  g_handled = g_handled + 1;
}
}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::signal(SIGUSR1, on_signal);
  int* p = nullptr;
  cudaMalloc(&p, 32 * sizeof(int));
  nvtxRangePushA("launches");
  for (int i = 0; i < n; ++i) tick<<<1, 32>>>(p);
  nvtxRangePop();
  cudaDeviceSynchronize();
  std::printf("signal_in_launch: %d launches, %d signals handled\n", n,
              static_cast<int>(g_handled));
  return 0;
}
