// exit_variants: the ways a CUDA program ends (docs/architecture.md §2.6), each after the
// same work.
// Usage: exit_variants MODE [K]   (K defaults to 10)
//   return      main returns
//   exit        exit(0) from main
//   quick_exit  quick_exit(0): only at_quick_exit handlers run
//   thread      exit(0) from another thread while main waits in cudaDeviceSynchronize calls
//   _exit       _exit(0): no handler runs (the profile ends at its last flush)
//   destructor  main returns; a static object's destructor then makes one more launch and
//               cudaDeviceSynchronize. The object was built before CUDA's first use, so its
//               destructor runs after the runtime's teardown: both calls fail with
//               cudaErrorCudartUnloading, as with the real runtime; they run before gprof's own
//               exit handler (registered first), which records them
// Runtime calls, in order: 1 cudaMalloc, K x (touch launch + cudaDeviceSynchronize), then the
// ending (tests count these). The thread mode makes its exit call after main's K launches.
// stdout: "exit_variants: MODE" (flushed before ending).
#include <cuda_runtime.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

__global__ void touch(float* p) {
  p[threadIdx.x] += 1.0f;
}

namespace {
// Armed by the destructor mode: CUDA calls from a static destructor, during exit.
struct LastWork {
  float* p = nullptr;
  ~LastWork() {
    if (!p) return;
    touch<<<1, 32>>>(p);
    cudaDeviceSynchronize();
  }
} g_last_work;
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: exit_variants return|exit|quick_exit|thread|_exit|destructor [K]\n");
    return 2;
  }
  const char* mode = argv[1];
  const int k = argc > 2 ? std::atoi(argv[2]) : 10;
  float* p = nullptr;
  cudaMalloc(&p, 32 * sizeof(float));
  for (int i = 0; i < k; ++i) {
    touch<<<1, 32>>>(p);
    cudaDeviceSynchronize();
  }
  std::printf("exit_variants: %s\n", mode);
  std::fflush(stdout);
  if (std::strcmp(mode, "exit") == 0) std::exit(0);
  if (std::strcmp(mode, "quick_exit") == 0) std::quick_exit(0);
  if (std::strcmp(mode, "_exit") == 0) _exit(0);
  if (std::strcmp(mode, "destructor") == 0) g_last_work.p = p;
  if (std::strcmp(mode, "thread") == 0) {
    std::atomic<bool> started{false};
    std::thread ender([&] {
      started = true;
      std::exit(0);
    });
    ender.detach();
    while (true) cudaDeviceSynchronize();  // until the other thread's exit ends the process
  }
  return 0;
}
