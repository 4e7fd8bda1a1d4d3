// nvtx_cpu_only: NVTX ranges and marks in a program without any CUDA (plain C++, NVTX3's
// header-only API, which finds its tool through NVTX_INJECTION64_PATH with dlopen). gprof must
// profile it all the same: a CPU-only program with annotations gets a file with its ranges.
//
// One thread. nvtxMarkA("start"); then R rounds (R = 3, or the first argument) of
//   push "outer" { busy ~1 ms; push "inner" { busy ~1 ms }; push "inner" { busy ~1 ms } }
// then nvtxMarkA("end"). So: "outer" x R, "inner" x 2R, marks "start" x1 and "end" x1.
// stdout is deterministic.
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

// Spins rather than sleeps so that the ranges take CPU time as real work does.
void Busy(std::chrono::microseconds how_long) {
  const auto end = std::chrono::steady_clock::now() + how_long;
  while (std::chrono::steady_clock::now() < end) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  if (argc > 2 || rounds < 0) {
    std::fprintf(stderr, "usage: nvtx_cpu_only [ROUNDS]\n");
    return 2;
  }
  nvtxMarkA("start");
  for (int i = 0; i < rounds; ++i) {
    nvtxRangePushA("outer");
    Busy(std::chrono::milliseconds(1));
    for (int j = 0; j < 2; ++j) {
      nvtxRangePushA("inner");
      Busy(std::chrono::milliseconds(1));
      nvtxRangePop();
    }
    nvtxRangePop();
  }
  nvtxMarkA("end");
  std::printf("nvtx_cpu_only: %d rounds\n", rounds);
  return 0;
}
