// --window and --range: what of a file's events stays in the trace.
//   --window: events overlapping the window (relative times); an async range
//             keeps both ends or neither.
//   --range:  calls, ranges and marks lying inside the interval of an NVTX
//             range (push/pop or start/end) of the same process whose row
//             name matches, whatever its thread; GPU work whose issuing call
//             is kept; unpaired GPU work is dropped.
// A memory counter sample stays with the call that moved the memory. Flows
// need both of their ends (trace_writer.h checks the keep flags).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/trace/file_events.h"
#include "tools/trace/time_window.h"

namespace gprof::trace {

struct EventCut {
  std::optional<TimeWindow> window;
  std::vector<std::string> ranges;  // glob patterns (analysis/glob.h)

  bool cuts() const { return window.has_value() || !ranges.empty(); }
};

// Sets the keep flags of the file's calls, GPU work and ranges and removes
// the events not kept. `to_relative` is added to a file time to make it
// relative to the trace's origin.
void cut_events(FileEvents& file, const EventCut& cut, int64_t to_relative);

}  // namespace gprof::trace
