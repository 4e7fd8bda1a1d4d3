// nvtx_overhead: N pairs of nvtxRangePushA/nvtxRangePop in batches of 1000, printing the median
// nanoseconds per pair over the batches; the NVTX figure of scripts/bench. No CUDA.
// Usage: nvtx_overhead [BATCHES]   (defaults to 200)
#include <nvtx3/nvToolsExt.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double NowNs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 200;
  if (batches <= 0) {
    std::fprintf(stderr, "usage: nvtx_overhead [BATCHES]\n");
    return 2;
  }
  nvtxRangePushA("warmup");  // loads the tool, interns the first string
  nvtxRangePop();
  std::vector<double> per_pair;
  for (int b = 0; b < batches; ++b) {
    const double start = NowNs();
    for (int i = 0; i < 1000; ++i) {
      nvtxRangePushA("forward");
      nvtxRangePop();
    }
    per_pair.push_back((NowNs() - start) / 1000);
  }
  std::nth_element(per_pair.begin(), per_pair.begin() + batches / 2, per_pair.end());
  std::printf("median_ns_per_pair=%.1f\n", per_pair[static_cast<size_t>(batches / 2)]);
  return 0;
}
