// The "GPU busy" counter of each device: the share of each bucket (aligned
// to the trace's origin) during which any kernel, copy or set ran on it, the
// union of their intervals (work overlapping on several streams counts
// once), as a percentage. A sample is added when the value changes.
#pragma once

#include <cstdint>
#include <optional>

#include "tools/trace/file_events.h"
#include "tools/trace/time_window.h"

namespace gprof::trace {

// From the file's GPU events (those cut_events kept); buckets that do not
// overlap `window` are left out. `to_relative` as in cut_events.
void add_busy_counters(FileEvents& file, uint64_t bucket_ns, int64_t to_relative,
                       const std::optional<TimeWindow>& window);

}  // namespace gprof::trace
