// call_overhead [BATCHES]: times batches of 1000 empty-kernel launches and
// prints the median time per launch. scripts/bench runs it with and without
// the shim; the difference is what the shim adds per intercepted call.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty_kernel() {}

namespace {

double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::atoi(argv[1]) : 200;
  constexpr int kBatch = 1000;
  std::vector<double> per_call;
  for (int b = 0; b < batches + 5; ++b) {
    double start = now_ns();
    for (int i = 0; i < kBatch; ++i) empty_kernel<<<1, 1>>>();
    double elapsed = now_ns() - start;
    if (b >= 5) per_call.push_back(elapsed / kBatch);  // the first batches warm up
    cudaDeviceSynchronize();
  }
  std::sort(per_call.begin(), per_call.end());
  std::printf("median_ns_per_launch=%.1f batches=%d\n", per_call[per_call.size() / 2], batches);
  return 0;
}
