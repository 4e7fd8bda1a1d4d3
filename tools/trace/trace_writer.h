// gpuprof trace: sidecar files as one Chrome trace-event JSON document
// (docs/trace.md), written as it is produced. Each file is read once, its
// events sorted per track outside memory (file_events.h), cut as they are
// written (event_filter.h), before the next file is read, so memory stays
// bounded whatever the size of a file or the number of files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/analysis/read/profile.h"
#include "tools/trace/event_filter.h"
#include "tools/trace/file_events.h"
#include "tools/trace/sink.h"

namespace gprof::trace {

struct TraceOptions {
  EventCut cut;
  uint64_t busy_bucket_ns = 1'000'000;
  size_t sort_memory = kDefaultSortMemory;  // bytes per file before sorting spills (file_events.h)
  // Threads beside the caller's (0: none, everything on the caller's
  // thread): one decodes the files' frames, each sorter spills on one, and
  // up to three encode the JSON. The bytes written do not depend on it.
  unsigned helpers = 0;
  std::vector<std::string> steps;  // --step patterns; empty: the defaults
};

struct TraceSummary {
  std::vector<analysis::FileInfo> files;  // as load_files would describe them
  uint64_t events = 0;                    // written, metadata included
  uint64_t kept = 0;                      // of the records' events: what a cut left
  // First and last record of all files, relative to the trace's origin
  // (--window's times); nullopt: no records.
  std::optional<std::pair<int64_t, int64_t>> span;
  bool written = false;               // false: the sink failed
  std::vector<std::string> warnings;  // one line each
};

// Writes the trace of `paths` (one process each, in this order) to `out`.
// Files that cannot be read add nothing; the caller decides what that means
// (check_files).
TraceSummary write_trace(const std::vector<std::string>& paths, const TraceOptions& options,
                         Sink& out);

}  // namespace gprof::trace
