// GPROF_STREAM=0 reads every file in memory: the path each stream is checked
// against (the tests, and a user who suspects a stream). One switch for
// report, diff and analyze. GPROF_STREAM=two-pass takes the key-averages
// stream's second way for --group-by stream|device (call_work_groups.h)
// on every file, not only on one whose GPU lags past the hold.
// GPROF_STREAM=spill-rows writes a key-averages table's rows out of memory
// past 2 of them rather than past 131072 (key_averages.h), and the labels
// of rows grouped by a number past 4 rather than 131072 (number_rows.h):
// the tests' way to the path a table of millions of rows takes.
#pragma once

#include <cstddef>
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

// The rows a key-averages table keeps in memory before it spills them.
inline size_t rows_in_memory() {
  const char* value = std::getenv("GPROF_STREAM");
  return value != nullptr && std::string_view(value) == "spill-rows" ? 2 : size_t{1} << 17;
}

// The labels of rows grouped by a number that the stream keeps in memory.
inline size_t number_rows_in_memory() {
  const char* value = std::getenv("GPROF_STREAM");
  return value != nullptr && std::string_view(value) == "spill-rows" ? 4 : size_t{1} << 17;
}

}  // namespace gprof::analysis
