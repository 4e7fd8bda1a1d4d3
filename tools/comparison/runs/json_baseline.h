// A JSON report (`gpuprof report --format json`, docs/report-json.md) read
// back as one run, so that CI can keep its baseline as a reviewable text
// file rather than a binary sidecar.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/comparison/runs/run_rows.h"

namespace gprof::comparison {

struct JsonBaseline {
  std::optional<RunRows> rows;  // nullopt: unusable, see error
  std::string group_by;         // the report's --group-by
  // The report's --range patterns; nullopt for a report written before it
  // recorded them.
  std::optional<std::vector<std::string>> ranges;
  // The sidecar files (processes) the report adds up; 0: it does not say.
  size_t processes = 0;
  // GPU records of those files together; nullopt: the report does not say.
  std::optional<uint64_t> gpu_records;
  // Why the document cannot be used: not a report, damaged, or rows that are
  // only part of a run's (another view than ops, cut by --limit, made with
  // --top-level-only).
  std::string error;
};

// Whether `text` (the start of a file is enough) looks like a JSON document
// rather than a sidecar file: after a byte order mark and white space, '{'
// or '['.
bool looks_like_json(std::string_view text);

// Checks the schema ("gprof.report"), its version (1) and every field the
// diff uses. Totals of CPU and CUDA time are the report's (they cover rows
// that --limit left out); the counts of kernels, copies, sets and API calls
// follow from its rows.
JsonBaseline parse_json_baseline(std::string_view text);

}  // namespace gprof::comparison
