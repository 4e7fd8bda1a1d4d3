// nvtx_thread_races: the two races issue 12 names, as a program (NVTX only, no CUDA).
//
// nvtx_thread_races late THREADS
//   THREADS threads, started in waves of 16 so that exited threads' queues are freed and reused
//   while others still record. Each thread pushes/pops "early", and at exit records once more
//   from a pthread key destructor: the key is created in main, after gprof's own (created in
//   its constructor), so glibc runs it after gprof has orphaned the thread's queue. That late
//   push/pop "late" must land in a queue of its own, not in the orphaned one the writer may
//   free (two producers on a single-producer queue). Expected: "early" x THREADS,
//   "late" x THREADS, nothing unbalanced.
//
// nvtx_thread_races fork CHILDREN
//   A thread keeps interning new names (push/pop "churn N", N counting up) while main forks
//   CHILDREN times; each child pushes/pops a name never seen before ("child K") and exits.
//   With an in-order publish loop, a child whose parent was mid-way through adding a name
//   waited forever for an entry no thread would fill. Expected: every child exits, each
//   child's file has its "child K" range.
//
// stdout is deterministic (counts only).
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

pthread_key_t g_late_key;

void late_record(void*) {
  nvtxRangePushA("late");
  nvtxRangePop();
}

int late(int threads) {
  if (pthread_key_create(&g_late_key, late_record) != 0) return 1;
  for (int started = 0; started < threads;) {
    std::vector<std::thread> wave;
    for (int i = 0; i < 16 && started < threads; ++i, ++started) {
      wave.emplace_back([] {
        pthread_setspecific(g_late_key, reinterpret_cast<void*>(1));
        nvtxRangePushA("early");
        nvtxRangePop();
      });
    }
    for (std::thread& t : wave) t.join();
  }
  std::printf("late: %d threads\n", threads);
  return 0;
}

int fork_children(int children) {
  // NVTX3 initializes itself on a module's first call and makes other callers
  // wait; a fork in the middle of that would leave the child waiting forever
  // (NVTX's own race, not the one tested here).
  nvtxRangePushA("parent");
  nvtxRangePop();
  std::atomic<bool> stop{false};
  std::thread churn([&] {
    char name[64];
    for (unsigned n = 0; !stop.load(std::memory_order_relaxed); ++n) {
      std::snprintf(name, sizeof name, "churn %u", n);
      nvtxRangePushA(name);
      nvtxRangePop();
    }
  });
  int failed = 0;
  for (int k = 0; k < children; ++k) {
    const pid_t pid = fork();
    if (pid == 0) {
      char name[64];
      std::snprintf(name, sizeof name, "child %d", k);
      nvtxRangePushA(name);
      nvtxRangePop();
      std::exit(0);  // runs gprof's exit flush: the child's own file gets written
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
      ++failed;
  }
  stop.store(true);
  churn.join();
  std::printf("fork: %d children, %d failed\n", children, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 2 ? std::atoi(argv[2]) : 0;
  if (argc != 3 || n <= 0) {
    std::fprintf(stderr, "usage: nvtx_thread_races late THREADS | fork CHILDREN\n");
    return 2;
  }
  if (std::strcmp(argv[1], "late") == 0) return late(n);
  if (std::strcmp(argv[1], "fork") == 0) return fork_children(n);
  std::fprintf(stderr, "nvtx_thread_races: unknown mode %s\n", argv[1]);
  return 2;
}
