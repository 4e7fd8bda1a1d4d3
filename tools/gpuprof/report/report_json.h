// `gpuprof report --format json`: the key-averages rows with the files'
// metadata and losses, in the versioned schema of docs/report-json.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"
#include "tools/analysis/read/profile.h"
#include "tools/analysis/render/table.h"
#include "tools/analysis/render/text_sink.h"

namespace gprof::cli {

inline constexpr int kReportJsonVersion = 1;

struct JsonReportInfo {
  std::string view;      // ops, ranges, api, kernels
  std::string group_by;  // name, launch-config, stream, ... (canonical)
  std::string sort;      // the sort key used (canonical)
  // What selected the rows besides the view: a baseline made with them is
  // only comparable with runs cut the same way (gpuprof diff checks).
  std::vector<std::string> ranges;
  bool top_level_only = false;
  // The lines the table prints under it, one per line: range problems,
  // steps and GPU busy, why GPU times are missing, losses.
  std::string notes;
};

// The document, pretty-printed (2 spaces) and ending in a newline. `rows`
// are sorted and limited as the table's (options.sort, options.row_limit).
std::string render_json_report(std::vector<analysis::Row> rows,
                               const analysis::TableOptions& options, const JsonReportInfo& info,
                               const std::vector<analysis::FileInfo>& files);
// The same text in parts, each handed to `write` as it is made: the rows
// one by one, so that a table of a row per op is not held as a document.
void write_json_report(std::vector<analysis::Row> rows, const analysis::TableOptions& options,
                       const JsonReportInfo& info, const std::vector<analysis::FileInfo>& files,
                       const analysis::TextSink& write);
// The rows `next` gives, in its order and number, with `totals`.
void write_json_report(const analysis::TableTotals& totals, const analysis::RowCursor& next,
                       const analysis::TableOptions& options, const JsonReportInfo& info,
                       const std::vector<analysis::FileInfo>& files,
                       const analysis::TextSink& write);

}  // namespace gprof::cli
