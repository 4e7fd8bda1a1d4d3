// --window and --range: what of a file's events stays in the trace.
//   --window: events overlapping the window (relative times); an async range
//             keeps both ends or neither.
//   --range:  calls, ranges and marks lying inside the interval of an NVTX
//             range (push/pop or start/end) of the same process whose row
//             name matches, whatever its thread; GPU work whose issuing call
//             is kept; unpaired GPU work is dropped.
// A memory counter sample stays with the call that moved the memory. Flows
// need both of their ends. Each item carries the spans it is judged by
// (trace_item.h), so the cut is decided as items are written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/trace/time_window.h"
#include "tools/trace/trace_item.h"

namespace gprof::trace {

struct EventCut {
  std::optional<TimeWindow> window;
  std::vector<std::string> ranges;  // glob patterns (analysis/glob.h)

  bool cuts() const { return window.has_value() || !ranges.empty(); }
};

using Interval = std::pair<uint64_t, uint64_t>;  // [start, end] on the file's clock

// The call an item stands for or hangs on (a call, its flow starts, GPU work
// with has_call, a memory counter), and the GPU work of GPU slices and of
// flow starts.
inline Interval call_span(const Item& e) {
  return e.kind == EventKind::kCall ? Interval{e.start_ns, e.start_ns + e.dur_ns}
                                    : Interval{e.other_start, e.other_end};
}
inline Interval gpu_span(const Item& e) {
  return e.kind == EventKind::kGpu ? Interval{e.start_ns, e.start_ns + e.dur_ns}
                                   : Interval{e.other_start, e.other_end};
}

// The cut of one file. `to_relative` is added to a file time to make it
// relative to the trace's origin.
class FileCut {
 public:
  FileCut(const EventCut& cut, int64_t to_relative) : cut_(cut), to_relative_(to_relative) {}

  // A range named `name` spanning `span`: part of the --range scope when the
  // name matches. Add all before asking keep().
  void add_range(const std::string& name, Interval span);

  bool call_kept(Interval call) const { return in_window(call) && in_scope(call); }
  bool gpu_kept(const Item& gpu) const;  // a kGpu item
  bool keep(const Item& item) const;
  int64_t to_relative() const { return to_relative_; }
  // Once the trace's origin is known (after the file was read).
  void set_to_relative(int64_t to_relative) { to_relative_ = to_relative; }
  bool cuts() const { return cut_.cuts(); }
  const std::optional<TimeWindow>& window() const { return cut_.window; }

 private:
  bool in_window(Interval i) const;
  bool in_scope(Interval i) const;
  void merge() const;

  const EventCut& cut_;
  int64_t to_relative_;
  mutable std::vector<Interval> scope_;
  mutable bool merged_ = true;
};

}  // namespace gprof::trace
