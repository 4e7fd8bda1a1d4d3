// report's launches and memory views over a stream of each file's GPU work
// and the calls that issued it (findings/stream/issued_work.h), so that their
// memory follows the rows and not the run, --range included; files the
// stream cannot take are read in memory, with a note, as the key-averages
// views do.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/analysis/aggregate/launches.h"
#include "tools/analysis/aggregate/transfers.h"
#include "tools/analysis/read/profile.h"
#include "tools/gpuprof/report/report_options.h"

namespace gprof::cli {

// Reads `path` into the view, or nullopt (`why` says why) when it must be
// read in memory; what the progress display counted is then taken back.
// `ranges` (--range): only the work of calls in them, which a first stream
// of the file marks (ops_stream.h) as the key-averages views find them;
// `range_matched`: whether any range of the file matched them.
std::optional<analysis::FileInfo> stream_view_file(const std::string& path, unsigned decoders,
                                                   const std::vector<std::string>& ranges,
                                                   analysis::LaunchesVisitor& view,
                                                   bool& range_matched, std::string& why);
std::optional<analysis::FileInfo> stream_view_file(const std::string& path, unsigned decoders,
                                                   const std::vector<std::string>& ranges,
                                                   analysis::TransfersVisitor& view,
                                                   bool& range_matched, std::string& why);

}  // namespace gprof::cli
