// threads_streams: concurrent host threads, each driving its own non-blocking stream, so that a
// profiler sees overlapping work from several threads and streams. Each of the 8 threads creates
// a stream, allocates a device buffer and a pinned host buffer, launches busy_kernel M times on
// its stream, copies the buffer back with one cudaMemcpyAsync, synchronizes its stream, and frees
// everything. Usage: threads_streams [--launches M]   (M defaults to 50)
//
// Only the main thread prints, after joining, so stdout is deterministic; it reports counts, not
// data (the fake runtime does not execute kernels, and the text must match on both runtimes).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kThreads = 8;
constexpr int kElements = 1 << 16;
constexpr int kBlock = 256;
constexpr int kRounds = 64;

__global__ void busy_kernel(float* data, int n, int rounds) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float value = data[i];
  for (int r = 0; r < rounds; ++r) value = value * 0.999f + 1.0f;
  data[i] = value;
}

struct Outcome {
  int launches = 0;
  size_t bytes_copied = 0;
  std::string error;  // first failure, empty when none
};

// Records the first failure of a thread; later calls are skipped.
bool Ok(cudaError_t error, const char* what, Outcome* outcome) {
  if (error == cudaSuccess) return true;
  if (outcome->error.empty()) {
    outcome->error = std::string(what) + " failed: " + cudaGetErrorName(error) + ": " +
                     cudaGetErrorString(error);
  }
  return false;
}

void Worker(int launches, Outcome* outcome) {
  const size_t bytes = sizeof(float) * kElements;
  cudaStream_t stream = nullptr;
  float* device = nullptr;
  float* host = nullptr;
  if (!Ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags",
          outcome)) {
    return;
  }
  if (Ok(cudaMalloc(&device, bytes), "cudaMalloc", outcome) &&
      Ok(cudaMallocHost(&host, bytes), "cudaMallocHost", outcome)) {
    const int grid = (kElements + kBlock - 1) / kBlock;
    for (int k = 0; k < launches; ++k) {
      busy_kernel<<<grid, kBlock, 0, stream>>>(device, kElements, kRounds);
      ++outcome->launches;
    }
    if (Ok(cudaGetLastError(), "busy_kernel launch", outcome) &&
        Ok(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync",
           outcome)) {
      outcome->bytes_copied += bytes;
    }
    Ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize", outcome);
  }
  if (host != nullptr) Ok(cudaFreeHost(host), "cudaFreeHost", outcome);
  if (device != nullptr) Ok(cudaFree(device), "cudaFree", outcome);
  Ok(cudaStreamDestroy(stream), "cudaStreamDestroy", outcome);
}

int ParseLaunches(int argc, char** argv) {
  int launches = 50;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--launches") == 0 && i + 1 < argc) {
      launches = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: threads_streams [--launches M]\n");
      std::exit(2);
    }
  }
  if (launches < 0) {
    std::fprintf(stderr, "threads_streams: launches must be >= 0\n");
    std::exit(2);
  }
  return launches;
}

}  // namespace

int main(int argc, char** argv) {
  const int launches = ParseLaunches(argc, argv);
  std::printf("threads_streams: threads=%d launches_per_thread=%d\n", kThreads, launches);

  std::vector<Outcome> outcomes(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(Worker, launches, &outcomes[t]);
  for (std::thread& thread : threads) thread.join();

  int total_launches = 0;
  size_t total_bytes = 0;
  int failures = 0;
  for (int t = 0; t < kThreads; ++t) {
    total_launches += outcomes[t].launches;
    total_bytes += outcomes[t].bytes_copied;
    if (!outcomes[t].error.empty()) {
      std::fprintf(stderr, "threads_streams: thread %d: %s\n", t, outcomes[t].error.c_str());
      ++failures;
    }
  }
  if (failures > 0) return 1;
  std::printf("threads_streams: total_launches=%d total_bytes_copied=%zu\n", total_launches,
              total_bytes);
  return 0;
}
