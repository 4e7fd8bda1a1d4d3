// Where a row's first kept event stands in the walk order of a file: what
// of its CpuNode that order needs (the stream's rows are placed by it,
// ops_stream.h), and the same as a RowPlace (row_runs.h) for rows that
// leave memory before the file ends.
#pragma once

#include <cstdint>

#include "tools/analysis/aggregate/row_runs.h"
#include "tools/analysis/model/cpu_tree.h"

namespace gprof::analysis {

struct FirstEvent {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t thread = 0;
  uint32_t id = 0;
  bool is_range = false;
  bool seen = false;

  static FirstEvent of(const CpuNode& n) {
    return FirstEvent{n.start_ns, n.end_ns, n.thread, n.id, range(n), true};
  }
  friend bool range(const FirstEvent& e) { return e.is_range; }
  // By thread, then as walks_before() orders a thread's events.
  bool operator<(const FirstEvent& b) const {
    return thread != b.thread ? thread < b.thread : walks_before(*this, b);
  }
  // The label of `node` (a kept event of it) was walked: the earlier stays.
  void walked(const CpuNode& node) {
    // A thread walks in order: a label seen on this thread stays first here.
    if (!seen || (node.thread != thread && FirstEvent::of(node) < *this))
      *this = FirstEvent::of(node);
  }
  // The same order among the CPU rows (section 0) of file `file`.
  RowPlace place(uint32_t file) const {
    return RowPlace{uint64_t{file} << 40 | thread, start_ns, ~end_ns,
                    uint64_t{is_range ? 0u : 1u} << 32 | id};
  }
};

}  // namespace gprof::analysis
