#include "tools/analysis/aggregate/ops_stream.h"

#include <exception>
#include <optional>

#include "formats/read/pipelined_reader.h"
#include "tools/analysis/aggregate/ops_stream_visitor.h"
#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/read/record_tee.h"

namespace gprof::analysis {

namespace {

using ops_stream::FirstPass;
using ops_stream::OpsStream;

// File `index`'s rows, spilled past what memory should hold.
KeyAverages file_rows(uint32_t index) {
  KeyAverages rows(index);
  rows.spill_above(rows_in_memory());
  return rows;
}

// One read of the file into `out` and `local`; false (`why` says) when
// the stream cannot take it. `first` and `second`: as OpsStream's.
// `needs_two_passes` (may be null): set when one pass could not do.
bool stream_once(uint32_t index, const std::string& path, const OpsOptions& options,
                 const std::optional<std::vector<std::string>>& steps, unsigned decoders,
                 CallSet* scope, FirstPass* first, FirstPass* second, StreamedFile& out,
                 KeyAverages& local, std::string& why, bool* needs_two_passes,
                 RecordVisitor* beside) {
  OpsStream stream(out.info, options, steps.value_or(std::vector<std::string>{}), index, first,
                   second);
  stream.mark_scope(scope);
  std::optional<RecordTee> tee;
  if (beside != nullptr) tee.emplace(stream, *beside);
  RecordVisitor& visitor = tee ? static_cast<RecordVisitor&>(*tee) : stream;
  out.info.status =
      decoders > 0 ? read_file_pipelined(path, visitor, decoders) : read_file(path, visitor);
  if (!stream.why().empty() || !stream.finish(local, steps ? &out.throughput : nullptr, index)) {
    why = stream.why();
    if (needs_two_passes != nullptr) *needs_two_passes = stream.needs_two_passes();
    retract_read_progress(out.info.status);
    return false;
  }
  out.saw_memory = stream.saw_memory();
  return true;
}

// A file one pass cannot take exactly (--group-by stream|device on a GPU
// too far behind for the hold, --range naming a start/end range): what
// the second pass needs from a first (FirstPass), then the rows.
bool stream_twice(uint32_t index, const std::string& path, const OpsOptions& options,
                  const std::optional<std::vector<std::string>>& steps, unsigned decoders,
                  CallSet* scope, StreamedFile& out, KeyAverages& local, std::string& why,
                  RecordVisitor* beside) {
  FirstPass found;
  {
    StreamedFile scratch_file;
    scratch_file.info.path = path;
    KeyAverages scratch = file_rows(index);
    if (!stream_once(index, path, options, std::nullopt, decoders, nullptr, &found, nullptr,
                     scratch_file, scratch, why, nullptr, nullptr))
      return false;
    retract_read_progress(scratch_file.info.status);  // the file counts once, in the second
  }
  found.groups.finish();
  return stream_once(index, path, options, steps, decoders, scope, nullptr, &found, out, local, why,
                     nullptr, beside);
}

}  // namespace

std::optional<StreamedFile> stream_ops_file(uint32_t index, const std::string& path,
                                            const OpsOptions& options,
                                            const std::optional<std::vector<std::string>>& steps,
                                            KeyAverages& rows, std::string& why, unsigned decoders,
                                            CallSet* scope, RecordVisitor* beside) {
  StreamedFile out;
  out.info.path = path;
  KeyAverages local = file_rows(index);
  try {
    const bool by_work =
        options.group_by == GroupBy::kStream || options.group_by == GroupBy::kDevice;
    bool twice = by_work && two_passes_asked();
    if (twice || !stream_once(index, path, options, steps, decoders, scope, nullptr, nullptr, out,
                              local, why, &twice, beside)) {
      if (!twice) return std::nullopt;  // read again in memory
      out = StreamedFile{};
      out.info.path = path;
      local = file_rows(index);
      if (scope != nullptr) *scope = CallSet{};
      why.clear();
      if (!stream_twice(index, path, options, steps, decoders, scope, out, local, why, beside))
        return std::nullopt;
    }
  } catch (const std::exception& e) {
    // The throughput lines spill to temporary files (throughput_stream.h);
    // the in-memory path needs none.
    why = e.what();
    return std::nullopt;
  }
  rows.merge(std::move(local));
  return out;
}

}  // namespace gprof::analysis
