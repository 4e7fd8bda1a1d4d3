// The two sides of `gpuprof diff`: their runs read from sidecar files,
// directories and JSON reports, with the checks that keep a comparison
// meaningful (docs/diff.md, "Sides and runs").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tools/analysis/aggregate/group_by.h"
#include "tools/comparison/compare/comparison.h"
#include "tools/comparison/runs/run_rows.h"
#include "tools/comparison/runs/sidecar_run.h"
#include "tools/gpuprof/cli/diagnostics.h"

namespace gprof::cli {

struct LoadedSide {
  comparison::SideInfo info;
  std::vector<comparison::RunRows> runs;
  // Processes (files) each run adds up; 0 where a JSON report does not say.
  std::vector<size_t> processes;
  // GPU records each run holds; nullopt where a JSON report does not say.
  std::vector<std::optional<uint64_t>> gpu_records;
};

// Rows keyed by a process or thread id never match across runs: why, or
// nullopt for a key that can.
std::optional<std::string> unmatchable_group(analysis::GroupBy group_by);

// Each run of `arguments` (expand_run_list), with a line on stderr for every
// problem; nullopt when some run cannot be used. `group_by` as given, for
// the JSON reports' check. `notes`: the "read in memory" notes the command
// printed, so that a file read twice gets one.
std::optional<LoadedSide> load_side(const std::vector<std::string>& arguments,
                                    const std::string& group_by, const comparison::RowOptions& rows,
                                    InMemoryNotes& notes);

// Whether no run of the side has a row.
bool no_rows(const LoadedSide& side);

// Why the runs of the two sides cannot be compared (they add up different
// numbers of processes), or nullopt.
std::optional<std::string> unlike_runs(const LoadedSide& base, const LoadedSide& now);

// Why GPU times cannot be compared: some run of one side has GPU records and
// some run of the other has none (recorded without CUPTI, or CUPTI taken by
// another tool), which would pass any GPU regression as -100%; or nullopt.
std::optional<std::string> gpu_data_mismatch(const LoadedSide& base, const LoadedSide& now);

}  // namespace gprof::cli
