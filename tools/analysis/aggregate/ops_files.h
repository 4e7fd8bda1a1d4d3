// The key-averages rows of many files (report's ops, ranges, api and kernels
// views, and diff), read on several threads (parallel_files.h): each file
// into rows of its own, merged in file order, so that rows, their order and
// every sum are those of one OpsRowsVisitor reading the files one by one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/ops_rows.h"
#include "tools/analysis/aggregate/throughput.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

struct OpsFilesOptions {
  OpsOptions ops;
  // --step patterns for the lines under the table (throughput.h); nullopt:
  // no throughput (diff).
  std::optional<std::vector<std::string>> steps;
  unsigned jobs = 0;  // 0: one per hardware thread
};

struct OpsFiles {
  KeyAverages rows;
  std::vector<FileInfo> files;
  std::vector<FileThroughput> throughput;  // one per file when asked for
  bool saw_memory = false;                 // OpsRowsVisitor::saw_memory()
  // Files read in memory although the options allowed a stream, and why
  // (ops_stream.h): (path, reason).
  std::vector<std::pair<std::string, std::string>> in_memory;
};

OpsFiles aggregate_ops_files(const std::vector<std::string>& paths, const OpsFilesOptions& options);

}  // namespace gprof::analysis
