// The key-averages rows and throughput of one file, read as a stream: what
// OpsRowsVisitor and ThroughputVisitor compute (ops_rows.h, throughput.h),
// the same rows in the same order with the same sums, in memory that
// follows the distinct rows and the records in flight rather than the file:
//   - each thread's calls and push/pop ranges are nested as they come
//     (thread_stream.h); a row's place is that of its first event in the
//     order a sort by thread and start gives, kept per label and applied
//     when the file ends;
//   - GPU records pair with their calls by correlation (call_slots.h); GPU
//     time that comes after its call was walked goes where the walk says
//     (walk_contexts.h); after its call left the table, to where the call's
//     context pointed, kept aside in bounded memory and on disk past it, and
//     added when the file ends (late_device_time.h);
//   - GPU rows, launches of a CPU-only file and [memory] are summed by label;
//   - with a capture window, GPU records read before any call of their id
//     are held (on disk past 4 MiB) until the file ends: then those whose
//     call never came and that started outside every window are left out
//     as work issued outside it (capture_windows.h), the others counted;
//     a held record's CUPTI id that an external correlation maps later
//     (another tool took CUPTI over in the window) is renamed first.
//     A record whose mapping had been pushed out of ExternalIds' table is
//     judged so too, once joined with it (pair_lost()).
// Kept until the file ends: start/end ranges (they pair across threads),
// allocation and free calls (memory_ledger.h), step ranges (steps.h).
//
// --group-by seq: nearly a row per op. The labels of rows grouped by a
// number are kept for the last 131072 of them (number_rows.h); older ones
// leave as rows at their places (row_runs.h), and the file's rows spill
// past 131072 too (key_averages.h): memory does not follow the ops.
//
// --group-by thread and --range: a GPU row's thread, and whether it counts,
// are its call's, carried as a tag in CallSlots; work read before its call
// waits for it (the call's read for a thread, its walk for a range), work of
// a call pushed out of the table is joined with the call's tag on disk.
//
// --group-by stream|device: a call's row is that of its first GPU work; a
// call that issues work is held back from its thread's walk until the work
// has come (ThreadStream::hold_until_ready), at most 2^19 events of all
// threads. Its tag is that work's group, and with --range the walk adds the
// scope. A GPU further behind makes the file go in two passes: the groups
// by call first, then the rows (call_work_groups.h).
//
// --range naming a start/end range: a window in time over every thread's
// events, known once its end is read, long after the events inside it were
// walked. The file goes in two passes: the windows, and which push/pop
// ranges lie in one (by their number in the file), first.
//
// Some files are not for the stream: ids too far apart to unwrap, and files
// the checks find out of order.
// stream_ops_file() then says why, and the caller reads the file in memory,
// which gives the same results.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/ops_rows.h"
#include "tools/analysis/aggregate/throughput.h"
#include "tools/analysis/model/call_scope.h"
#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

struct StreamedFile {
  FileInfo info;
  std::optional<FileThroughput> throughput;  // when steps were asked for
  bool saw_memory = false;
};

// Reads file `index` at `path` into `rows` (created in the order the
// in-memory path creates them). nullopt: the file needs the in-memory path
// (`why` says why); `rows` is then as it was.
// `decoders`: threads that decode the file's frames beside the calling
// thread's aggregation (formats/read/pipelined_reader.h), for cores that would
// otherwise idle; 0: the calling thread decodes too.
// `scope` (with --range): the calls in range, by ApiCall::index, for a
// second stream of the same file (report's launches and memory views).
// `beside`: also handed every record of the read that gives the rows (info's
// counts), in the same read; when nullopt comes back it saw part of a file
// at most, and its counts are to be thrown away.
std::optional<StreamedFile> stream_ops_file(uint32_t index, const std::string& path,
                                            const OpsOptions& options,
                                            const std::optional<std::vector<std::string>>& steps,
                                            KeyAverages& rows, std::string& why,
                                            unsigned decoders = 0, CallSet* scope = nullptr,
                                            RecordVisitor* beside = nullptr);

}  // namespace gprof::analysis
