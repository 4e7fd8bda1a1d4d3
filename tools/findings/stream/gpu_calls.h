// Which call issued each GPU record of a file, read as a stream: the
// pairing of the findings' external sorts (stream_scan.h,
// analysis/read/correlation_join.h), handed out by the record's number in the file
// (FileScan's seq: its records with a timestamp, in file order), for a
// caller that reads the file again and meets the records in that order
// (`gpuprof dump --records gpu`). Memory does not grow with the file.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "tools/analysis/read/profile.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::findings::stream {

struct GpuCall {
  uint64_t seq = 0;          // the record's number among the file's timestamped GPU records
  uint64_t correlation = 0;  // the call's id as the stream unwrapped it (stream_ids.h)
  bool has_call = false;
  // false: work issued outside the file's capture window, left out as the
  // in-memory loader leaves it out (capture_windows.h)
  bool kept = true;
};

struct GpuCallBySeq {
  bool operator()(const GpuCall& a, const GpuCall& b) const { return a.seq < b.seq; }
  static std::pair<uint64_t, uint64_t> prefix(const GpuCall& c) { return {c.seq, 0}; }
};

using GpuCalls = analysis::SpillSorter<GpuCall, GpuCallBySeq>;

// Reads `path` into `calls` (one entry per timestamped GPU record),
// `kernels` (the file's kernel names by id, all of them, as the in-memory
// loader names records once the file is read) and `info` as load_file
// would. False: the file needs the in-memory loader (`why` says why; pushed
// ids from an older gprof, ids too far apart to unwrap, events out of
// order), and `calls` holds nothing useful.
bool stream_gpu_calls(const std::string& path, analysis::FileInfo& info, GpuCalls& calls,
                      std::unordered_map<uint32_t, std::string>& kernels, std::string& why);

}  // namespace gprof::findings::stream
