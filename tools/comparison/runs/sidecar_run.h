// One run read from its sidecar files (one per process or rank): the rows
// `gpuprof report` computes for them, view ops.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/group_by.h"
#include "tools/analysis/read/profile.h"
#include "tools/comparison/runs/run_rows.h"

namespace gprof::comparison {

struct RowOptions {
  analysis::GroupBy group_by = analysis::GroupBy::kName;
  std::vector<std::string> ranges;  // --range patterns; empty: everything
  unsigned jobs = 0;                // files read at once (--jobs); 0: one per hardware thread
};

struct SidecarRun {
  RunRows rows;
  // What the reader said about each file; the caller decides what is fatal
  // (status.opened == false) and what deserves a warning.
  std::vector<analysis::FileInfo> files;
  // Files read in memory although they could have been streamed, and why
  // (analysis::OpsFiles::in_memory).
  std::vector<std::pair<std::string, std::string>> in_memory;
};

// The run's files are read on `options.jobs` threads, each streamed where
// it can be (ops_files.h: the rows `report` prints).
SidecarRun load_sidecar_run(const std::vector<std::string>& paths, const RowOptions& options);

}  // namespace gprof::comparison
