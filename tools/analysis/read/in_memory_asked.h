// GPROF_STREAM=0 reads every file in memory: the path each stream is checked
// against (the tests, and a user who suspects a stream). One switch for
// report, diff and analyze. GPROF_STREAM=two-pass takes the key-averages
// stream's second way for --group-by stream|device (call_work_groups.h)
// on every file, not only on one whose GPU lags past the hold.
#pragma once

#include <cstdlib>
#include <string_view>

namespace gprof::analysis {

inline bool in_memory_asked() {
  const char* value = std::getenv("GPROF_STREAM");
  return value != nullptr && std::string_view(value) == "0";
}

inline bool two_passes_asked() {
  const char* value = std::getenv("GPROF_STREAM");
  return value != nullptr && std::string_view(value) == "two-pass";
}

}  // namespace gprof::analysis
