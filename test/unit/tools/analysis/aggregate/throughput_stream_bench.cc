// CPU cost of ThroughputStream::work() and finish() on N generated kernel
// records (not a test: timings are no assertions; scripts/bench may run it,
// and callgrind counts its instructions).
// Usage: throughput_stream_bench N [sorted|nearly|buffers|shuffled] [stream|baseline|floor]
//   nearly:   in time order but for swaps within 40 records and a long kernel
//             each 100K arriving 1M records late;
//   buffers:  4 streams, each handed out in runs of 1000 records (CUPTI buffers);
//   baseline: store the intervals in a vector and run covered_length(), as
//             ThroughputVisitor does;
//   floor:    only generate the records (the cost to subtract).
#include <sys/resource.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tools/analysis/aggregate/gpu_busy.h"
#include "tools/analysis/aggregate/throughput_stream.h"

namespace {

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec) * 1e-6;
}

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s N [sorted|nearly|buffers|shuffled] [stream|baseline|floor]\n",
                 argv[0]);
    return 2;
  }
  const uint64_t n = std::strtoull(argv[1], nullptr, 10);
  const std::string order = argc > 2 ? argv[2] : "nearly";
  const std::string mode = argc > 3 ? argv[3] : "stream";
  const bool baseline = mode == "baseline";
  if (n == 0 ||
      (order != "sorted" && order != "nearly" && order != "buffers" && order != "shuffled")) {
    std::fprintf(stderr,
                 "N must be a positive number; order one of sorted, nearly, buffers, shuffled\n");
    return 2;
  }
  // The records themselves are generated on the fly (a cheap LCG-like
  // formula), so that memory shows the aggregation's, not the input's.
  std::mt19937_64 rng(1);
  const auto interval = [&](uint64_t i) {
    const uint64_t stream = order == "buffers" ? (i / 1000) % 4 : 0;
    const uint64_t slot = order == "buffers" ? (i / 4000) * 1000 + i % 1000 : i;
    const uint64_t start = slot * 1000 + stream * 250 + (slot * 2654435761u) % 200;
    return std::pair<uint64_t, uint64_t>{start, start + 300 + (slot * 40503u) % 400};
  };
  std::vector<uint64_t> permutation;
  if (order == "shuffled") {
    permutation.resize(n);
    for (uint64_t i = 0; i < n; ++i) permutation[i] = i;
    std::shuffle(permutation.begin(), permutation.end(), rng);
  }
  const auto at = [&](uint64_t i) -> uint64_t {
    if (order == "shuffled") return permutation[i];
    if (order == "nearly") {
      if (i % 100000 == 50000 && i >= 1000000) return i - 1000000;  // arrives late
      if (i % 100000 == 50000) return i;
      const uint64_t j = i ^ (i % 40 < 20 ? 1u : 0u);  // neighbours swapped
      return j < n ? j : i;
    }
    return i;
  };
  const double cpu0 = cpu_seconds();
  uint64_t busy = 0;
  if (mode == "floor") {
    for (uint64_t i = 0; i < n; ++i) {
      const auto [start, end] = interval(at(i));
      busy += end - start;
    }
    std::printf("floor %s: %.1f ns/record to generate, ", order.c_str(),
                (cpu_seconds() - cpu0) * 1e9 / static_cast<double>(n));
  } else if (baseline) {
    std::vector<gprof::analysis::Interval> work;
    for (uint64_t i = 0; i < n; ++i) work.push_back(interval(at(i)));
    const double cpu1 = cpu_seconds();
    busy = gprof::analysis::covered_length(work, 0, UINT64_MAX / 2);
    const double cpu2 = cpu_seconds();
    std::printf("baseline %s: %.1f ns/record to store, %.1f ns/record covered_length, ",
                order.c_str(), (cpu1 - cpu0) * 1e9 / static_cast<double>(n),
                (cpu2 - cpu1) * 1e9 / static_cast<double>(n));
  } else {
    gprof::analysis::ThroughputStream stream;
    for (uint64_t i = 0; i < n; ++i) {
      const auto [start, end] = interval(at(i));
      stream.work(0, start, end);
    }
    const double cpu1 = cpu_seconds();
    const auto line = stream.finish(0, 1, 0, UINT64_MAX / 2);
    const double cpu2 = cpu_seconds();
    busy = line.devices.at(0).busy_ns;
    std::printf("stream %s: %.1f ns/record work(), finish() %.3f s, ", order.c_str(),
                (cpu1 - cpu0) * 1e9 / static_cast<double>(n), cpu2 - cpu1);
  }
  std::printf("busy %llu ns, peak RSS %ld KB\n", static_cast<unsigned long long>(busy),
              peak_rss_kb());
  return 0;
}
