// A JSON report (`gpuprof report --format json`, docs/report-json.md) read
// back as one run, so that CI can keep its baseline as a reviewable text
// file rather than a binary sidecar.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/diff/run_rows.h"

namespace gprof::diff {

struct JsonBaseline {
  std::optional<RunRows> rows;  // nullopt: unusable, see error
  std::string group_by;         // the report's --group-by
  std::string error;            // why the document cannot be used
  // Usable, but the comparison may be off: another view than ops, rows cut
  // by --limit.
  std::vector<std::string> warnings;
};

// Whether `text` looks like a JSON document rather than a sidecar file: its
// first character that is not white space is '{'.
bool looks_like_json(std::string_view text);

// Checks the schema ("gprof.report"), its version (1) and every field the
// diff uses. Totals of CPU and CUDA time are the report's (they cover rows
// that --limit left out); the counts of kernels, copies, sets and API calls
// follow from its rows.
JsonBaseline parse_json_baseline(std::string_view text);

}  // namespace gprof::diff
