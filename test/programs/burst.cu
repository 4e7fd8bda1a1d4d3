// burst: the capture load of a training loop, from several threads at once. Each of THREADS
// threads creates a non-blocking stream, opens NVTX range "thread", launches empty_kernel LAUNCHES
// times on its stream, then makes PAIRS nvtxRangePushA/nvtxRangePop pairs, closes "thread",
// synchronizes and destroys its stream. The threads start together (a barrier), so their records
// arrive at the profiler at the same time. With one thread the work runs on the main thread, so
// that `callgrind --separate-threads=yes` finds it in the main thread's file.
//
// Usage: burst THREADS LAUNCHES PAIRS [--torch-names]
//   --torch-names: each pair is named as PyTorch's emit_nvtx names an op call, unique per call:
//   "aten::add, seq = S, op_id = O, sizes = [[2, 3], [2, 3]]" with S = the call's index in its
//   thread and O = thread * PAIRS + S (docs/architecture.md §2.4).
//
// stdout, line 1 (deterministic; tests compare it): "threads=T launches=L pairs=P errors=E" with
// the totals over all threads. Line 2 (timings, for scripts/bench): the median over batches of
// 1000 of ns per launch and per pair, over all threads' batches.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

__global__ void empty_kernel() {}

namespace {

constexpr int kBatch = 1000;

double now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// nvcc compiles as C++17 by default, so no std::barrier.
class StartLine {
 public:
  explicit StartLine(int threads) : waiting_(threads) {}
  void arrive_and_wait() {
    waiting_.fetch_sub(1);
    while (waiting_.load() > 0) std::this_thread::yield();
  }

 private:
  std::atomic<int> waiting_;
};

struct Options {
  int threads = 0;
  long launches = 0;
  long pairs = 0;
  bool torch_names = false;
};

struct Result {
  long launches = 0;
  long pairs = 0;
  long errors = 0;
  std::vector<double> launch_ns;  // per call, one entry per full batch
  std::vector<double> pair_ns;
};

void work(const Options& o, int index, StartLine& start, Result* r) {
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) ++r->errors;
  start.arrive_and_wait();
  nvtxRangePushA("thread");
  for (long done = 0; done < o.launches;) {
    const long n = std::min<long>(kBatch, o.launches - done);
    const double t0 = now_ns();
    for (long i = 0; i < n; ++i) empty_kernel<<<1, 1, 0, stream>>>();
    if (n == kBatch) r->launch_ns.push_back((now_ns() - t0) / kBatch);
    done += n;
    r->launches += n;
  }
  if (cudaGetLastError() != cudaSuccess) ++r->errors;
  char name[128];
  for (long done = 0; done < o.pairs;) {
    const long n = std::min<long>(kBatch, o.pairs - done);
    const double t0 = now_ns();
    for (long i = 0; i < n; ++i) {
      if (o.torch_names) {
        const long seq = done + i;
        std::snprintf(name, sizeof name,
                      "aten::add, seq = %ld, op_id = %ld, sizes = [[2, 3], [2, 3]]", seq,
                      static_cast<long>(index) * o.pairs + seq);
        nvtxRangePushA(name);
      } else {
        nvtxRangePushA("pair");
      }
      nvtxRangePop();
    }
    if (n == kBatch) r->pair_ns.push_back((now_ns() - t0) / kBatch);
    done += n;
    r->pairs += n;
  }
  nvtxRangePop();
  if (cudaStreamSynchronize(stream) != cudaSuccess) ++r->errors;
  if (cudaStreamDestroy(stream) != cudaSuccess) ++r->errors;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (argc < 4) {
    std::fprintf(stderr, "usage: burst THREADS LAUNCHES PAIRS [--torch-names]\n");
    return 2;
  }
  o.threads = std::atoi(argv[1]);
  o.launches = std::atol(argv[2]);
  o.pairs = std::atol(argv[3]);
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "--torch-names") == 0) {
      o.torch_names = true;
    } else {
      std::fprintf(stderr, "burst: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (o.threads < 1 || o.launches < 0 || o.pairs < 0) {
    std::fprintf(stderr, "burst: THREADS must be >= 1, LAUNCHES and PAIRS >= 0\n");
    return 2;
  }
  std::vector<Result> results(static_cast<size_t>(o.threads));
  StartLine start(o.threads);
  if (o.threads == 1) {
    work(o, 0, start, &results[0]);
  } else {
    std::vector<std::thread> threads;
    for (int t = 0; t < o.threads; ++t) {
      threads.emplace_back(work, std::cref(o), t, std::ref(start),
                           &results[static_cast<size_t>(t)]);
    }
    for (std::thread& t : threads) t.join();
  }
  Result total;
  for (const Result& r : results) {
    total.launches += r.launches;
    total.pairs += r.pairs;
    total.errors += r.errors;
    total.launch_ns.insert(total.launch_ns.end(), r.launch_ns.begin(), r.launch_ns.end());
    total.pair_ns.insert(total.pair_ns.end(), r.pair_ns.begin(), r.pair_ns.end());
  }
  std::printf("threads=%d launches=%ld pairs=%ld errors=%ld\n", o.threads, total.launches,
              total.pairs, total.errors);
  std::printf("median_ns_per_launch=%.1f median_ns_per_pair=%.1f\n", median(total.launch_ns),
              median(total.pair_ns));
  return total.errors == 0 ? 0 : 1;
}
