// Writes sidecar files into a new SQLite database (docs/export.md): tables
// first, then every file's rows inside one transaction through prepared
// statements, then the indexes, then the fixes that need them (GPU work
// joined to its call through gprof's external correlations, work outside a
// capture window dropped as `report` drops it, a kernel's shared memory
// split into static and dynamic).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/analysis/read/profile.h"

namespace gprof::exporter {

struct ExportSummary {
  std::vector<analysis::FileInfo> files;  // the last one unopened when a file could not be read
  uint64_t rows = 0;                      // event rows (API calls, GPU work, NVTX)
  double load_seconds = 0;                // reading and inserting them
  double seconds = 0;                     // the whole export, indexes included
  bool ok() const { return files.empty() || files.back().status.opened; }
};

// Creates `path` (which must not exist) and fills it from `inputs`. Stops
// at the first input that cannot be read (see ExportSummary::ok): the
// caller then removes `path`. Throws SqliteError when SQLite fails.
ExportSummary write_database(const std::vector<std::string>& inputs, const std::string& path);

}  // namespace gprof::exporter
