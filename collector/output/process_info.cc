#include "collector/output/process_info.h"

#include "collector/gpu/driver_probe.h"
#include "collector/output/start_time.h"
#include "collector/process/process_state.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace gprof {
namespace {

void read_cmdline(ProcessInfo& info) {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  size_t used = 0;
  while (used < sizeof info.cmdline - 1) {
    ssize_t n = read(fd, info.cmdline + used, sizeof info.cmdline - 1 - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  close(fd);
  info.cmdline[used] = '\0';
  for (size_t at = 0; at < used && info.argc < ProcessInfo::kMaxArgs;) {
    info.argv[info.argc++] = info.cmdline + at;
    while (at < used && info.cmdline[at] != '\0') ++at;
    ++at;
  }
}

}  // namespace

void collect_process_info(ProcessInfo& info) {
  info.pid = static_cast<uint32_t>(getpid());
  info.ppid = static_cast<uint32_t>(getppid());
  if (gethostname(info.host, sizeof info.host - 1) != 0) info.host[0] = '\0';
  ssize_t n = readlink("/proc/self/exe", info.exe, sizeof info.exe - 1);
  info.exe[n > 0 ? n : 0] = '\0';
  format_start_time(info.start_time, sizeof info.start_time);
  read_cmdline(info);
  // Static information only: this never initializes a context. Never in the
  // child of a fork (docs/architecture.md §2.6): a CUDA or CUPTI call there can block on
  // a lock another thread of the parent held at fork time.
  using RuntimeGetVersion = int (*)(int*);
  if (process_state().forked_child.load(std::memory_order_acquire)) return;
  if (auto get =
          reinterpret_cast<RuntimeGetVersion>(dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion"))) {
    int version = 0;
    if (get(&version) == 0) info.cuda_runtime_version = version;
  }
  info.cuda_driver_version = driver_version();
}

}  // namespace gprof
