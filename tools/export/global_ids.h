// Process and thread ids as Nsight Systems serializes them ("Serialized
// GlobalId"): bits 0-23 the thread id, 24-47 the process id, 48-55 the VM id,
// 56-63 the hardware id. So the queries written for nsys exports work here:
//   pid = globalPid / 0x1000000 % 0x1000000
//   tid = globalTid % 0x1000000
// gprof has no VM or hardware ids; it uses those bits to keep files apart
// that share a pid (two hosts, a reused pid, a re-run in the same
// directory): the first file with a pid gets 0 there, the next ones 1, 2...
// (docs/export.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace gprof::exporter {

inline constexpr uint64_t kIdMask = 0xFFFFFF;  // 24 bits: Linux pids and tids fit (pid_max <= 2^22)

// (uniquifier << 48) | (pid << 24); the uniquifier stays below 2^15 so that
// ids are positive in SQLite's signed 64-bit integers.
int64_t global_pid(uint32_t pid, uint32_t uniquifier);
int64_t global_tid(int64_t global_pid, uint32_t tid);

// Hands out one globalPid per input file.
class GlobalPids {
 public:
  // The globalPid of the next file with this pid. Throws std::length_error
  // past 32767 files with one pid.
  int64_t next(uint32_t pid);

 private:
  std::map<uint32_t, uint32_t> used_;  // pid -> files so far
};

}  // namespace gprof::exporter
