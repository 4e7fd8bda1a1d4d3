#include "tools/export/global_ids.h"

#include <stdexcept>

namespace gprof::exporter {

namespace {
constexpr uint32_t kMaxUniquifier = 0x7FFF;
}

int64_t global_pid(uint32_t pid, uint32_t uniquifier) {
  return static_cast<int64_t>(uint64_t{uniquifier & kMaxUniquifier} << 48 |
                              (uint64_t{pid} & kIdMask) << 24);
}

int64_t global_tid(int64_t global_pid, uint32_t tid) {
  return global_pid | static_cast<int64_t>(tid & kIdMask);
}

int64_t GlobalPids::next(uint32_t pid) {
  uint32_t& count = used_[pid & kIdMask];
  if (count > kMaxUniquifier)
    throw std::length_error("more than 32768 files with one pid cannot be told apart");
  return global_pid(pid, count++);
}

}  // namespace gprof::exporter
