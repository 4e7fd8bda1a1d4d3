// hostile_fds: a program that takes every descriptor from 3 up away from whatever opened it, as
// daemons and some launchers do, between two halves of CUDA work. Usage:
// hostile_fds close|dup2 [--calls K]   (K defaults to 20)
//   close: closes every descriptor from 3 to the soft RLIMIT_NOFILE;
//   dup2:  opens /dev/null and dup2()s it onto every one of them (so a profiler that keeps
//          writing to its old number writes into /dev/null).
// Runtime calls, in order: K x (cudaMalloc + kernel launch + cudaFree), a cudaDeviceSynchronize,
// a 50 ms pause (the profiler's writer has opened and written to its file), the hostile act, then
// the same again (tests count these). stdout is deterministic.
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void touch(float* p) {
  p[threadIdx.x] = 1.0f;
}

namespace {

int g_failures = 0;

void Work(int calls) {
  for (int i = 0; i < calls; ++i) {
    float* p = nullptr;
    if (cudaMalloc(&p, 256 * sizeof(float)) != cudaSuccess) ++g_failures;
    touch<<<1, 256>>>(p);
    if (cudaFree(p) != cudaSuccess) ++g_failures;
  }
  if (cudaDeviceSynchronize() != cudaSuccess) ++g_failures;
}

int Limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
      limit.rlim_cur > 65536)
    return 65536;
  return static_cast<int>(limit.rlim_cur);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "close") != 0 && std::strcmp(argv[1], "dup2") != 0)) {
    std::fprintf(stderr, "usage: hostile_fds close|dup2 [--calls K]\n");
    return 2;
  }
  const int calls = argc == 4 && std::strcmp(argv[2], "--calls") == 0 ? std::atoi(argv[3]) : 20;
  Work(calls);
  timespec pause{0, 50 * 1000 * 1000};
  nanosleep(&pause, nullptr);
  const int limit = Limit();
  if (std::strcmp(argv[1], "close") == 0) {
    for (int fd = 3; fd < limit; ++fd) close(fd);
  } else {
    const int null = open("/dev/null", O_WRONLY);
    for (int fd = 3; fd < limit; ++fd)
      if (fd != null) dup2(null, fd);
  }
  Work(calls);
  std::printf("%s: failures=%d\n", argv[1], g_failures);
  return g_failures == 0 ? 0 : 1;
}
