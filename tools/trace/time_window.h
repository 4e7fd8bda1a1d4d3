// --window START:END: the part of the trace to keep, in times relative to
// the trace's origin (its earliest record), each with a unit: "1.5s:2s",
// "100ms:" (from 100 ms on), ":250ms" (up to 250 ms).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gprof::trace {

struct TimeWindow {
  int64_t begin_ns = INT64_MIN;
  int64_t end_ns = INT64_MAX;

  // Whether [start, end] (relative ns) overlaps the window; an instant has
  // start == end.
  bool overlaps(int64_t start, int64_t end) const { return start <= end_ns && end >= begin_ns; }
};

// The window, or what is wrong with `text` (one line, for a usage error).
struct ParsedWindow {
  std::optional<TimeWindow> window;
  std::string error;
};
ParsedWindow parse_window(std::string_view text);

}  // namespace gprof::trace
