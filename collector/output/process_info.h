// Facts about the host process for the file header and the output name.
// Writer thread only: these may allocate and read /proc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gprof {

struct ProcessInfo {
  static constexpr size_t kMaxArgs = 256;
  uint32_t pid = 0;
  uint32_t ppid = 0;
  char host[256] = {};
  char exe[4096] = {};
  char start_time[32] = {};  // local time, 20261122T035700
  char cmdline[32768] = {};  // NUL-separated, as in /proc/self/cmdline
  const char* argv[kMaxArgs] = {};
  size_t argc = 0;
  int32_t cuda_runtime_version = 0;
  int32_t cuda_driver_version = 0;  // 0 until libcuda.so.1 is loaded
};

// Fills `info` for the calling process.
void collect_process_info(ProcessInfo& info);

}  // namespace gprof
