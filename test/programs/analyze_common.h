// What the analyze test programs share: the --efficient flag, error checks
// and the step ranges ("ProfilerStep#N", as torch.profiler names them) that
// `gpuprof analyze` finds steps by. Each program makes one mistake that a
// rule of `gpuprof analyze` finds, inside a named NVTX range, or with
// --efficient does the same work the efficient way (test/e2e/test_analyze.py).
#pragma once

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace analyze_program {

inline bool Efficient(int argc, char** argv, const char* name) {
  if (argc == 1) return false;
  if (argc == 2 && std::strcmp(argv[1], "--efficient") == 0) return true;
  std::fprintf(stderr, "usage: %s [--efficient]\n", name);
  std::exit(2);
}

inline void Check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorName(error));
  std::exit(1);
}

// Host work that takes `us` microseconds of CPU (a framework's per-op
// overhead, a data loader decoding a batch): spins, so that it is CPU time.
inline void HostWork(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

struct Step {
  explicit Step(int i) { nvtxRangePushA(("ProfilerStep#" + std::to_string(i)).c_str()); }
  ~Step() { nvtxRangePop(); }
};

struct Range {
  explicit Range(const char* name) { nvtxRangePushA(name); }
  ~Range() { nvtxRangePop(); }
};

}  // namespace analyze_program
