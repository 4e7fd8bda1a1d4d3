// The key-averages aggregator: events in, one Row per key out (DESIGN.md §5).
//
// CPU-side events (ranges, API calls) are kept per thread and resolved in
// finish(): sorted by start time (longer first on ties), they are nested with
// a stack as torch's EventList._populate_cpu_children does, so an event's
// parent is the innermost event of the same thread that encloses it. Then
//   Self CPU  = duration - durations of direct children (never below zero),
//   CPU total = duration, except that an event nested inside another event of
//               the same key adds nothing (recursion counted once).
// Memory: 24 bytes per CPU event until finish().
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tools/analysis/row.h"

namespace gprof::analysis {

class KeyAverages {
 public:
  using Key = uint32_t;

  // The row for `name`, created (with `kind`) on first use. Rows come out of
  // finish() in the order their keys were created.
  Key key(std::string_view name, RowKind kind);

  // A range or an API call on `thread` (any id unique across the inputs,
  // e.g. file index << 32 | tid). Order of calls does not matter.
  void add_cpu_event(uint64_t thread, uint64_t start_ns, uint64_t end_ns, Key key);

  // A GPU activity of `key` (one more call). A file without GPU records adds
  // one with duration 0 per kernel launch, so kernel rows count launches.
  void add_gpu_activity(Key key, uint64_t duration_ns);

  // GPU time issued by an event of `key` (an API call): Self CUDA and CUDA
  // total grow, # of Calls does not (the call itself counts as a CPU event).
  void add_device_time(Key key, uint64_t duration_ns);

  // Resolves nesting and returns the rows; the aggregator is empty afterwards.
  std::vector<Row> finish();

  size_t row_count() const { return rows_.size(); }

 private:
  struct CpuEvent {
    uint64_t start_ns;
    uint64_t end_ns;
    Key key;
  };
  void resolve_thread(std::vector<CpuEvent>& events);

  std::vector<Row> rows_;
  std::map<std::string, Key, std::less<>> keys_;
  std::unordered_map<uint64_t, std::vector<CpuEvent>> threads_;
};

}  // namespace gprof::analysis
