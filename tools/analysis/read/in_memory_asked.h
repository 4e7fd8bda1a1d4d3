// GPROF_STREAM=0 reads every file in memory: the path each stream is checked
// against (the tests, and a user who suspects a stream). One switch for
// report, diff and analyze.
#pragma once

#include <cstdlib>
#include <string_view>

namespace gprof::analysis {

inline bool in_memory_asked() {
  const char* value = std::getenv("GPROF_STREAM");
  return value != nullptr && std::string_view(value) == "0";
}

}  // namespace gprof::analysis
