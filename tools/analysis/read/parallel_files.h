// Reading many sidecar files on several threads (--jobs): each file is read
// by one thread into analyses of its own, and the results are merged in the
// order of the files, so that the output is the same whatever the number of
// threads (rows are created in the order a sequential read would create
// them; sums of integers do not depend on the order they are added in).
//
// Memory: one file's records per thread in flight (profile.h), plus the
// merged results of files read ahead of the one to merge next, at most
// `jobs` of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/analysis/read/profile.h"

namespace gprof::analysis {

// The analyses of one file: made for the file, read on a worker thread,
// merged on the calling thread.
class FileWork {
 public:
  virtual ~FileWork() = default;
  virtual ProfileVisitor& visitor() = 0;
  // Reads the file its own way (a stream, ops_stream.h) when it can; nullopt:
  // load_file through visitor() instead.
  virtual std::optional<FileInfo> read(uint32_t /*file*/, const std::string& /*path*/) {
    return std::nullopt;
  }
};

// Made on a worker thread: the analyses of file `file` (its index in the list).
using MakeFileWork = std::function<std::unique_ptr<FileWork>(uint32_t file)>;
// Called on the calling thread once per file, in file order.
using MergeFileWork = std::function<void(uint32_t file, FileWork& work, const FileInfo& info)>;

// `jobs` threads at most (0: one per hardware thread); with one job or one
// file, everything runs on the calling thread. Files get the indexes and
// FileInfo that load_files gives them.
std::vector<FileInfo> load_files_parallel(const std::vector<std::string>& paths, unsigned jobs,
                                          const MakeFileWork& make, const MergeFileWork& merge);

// The number of threads `--jobs 0` (the default) stands for: the hardware's.
unsigned default_jobs();

// Threads that decode the frames of each file being read (pipelined_reader.h)
// when `jobs` threads (0: default_jobs()) read `files` files at once: the
// cores the files leave idle, at most kMaxDecoders a file. One decoder keeps
// up with the stream it feeds (decoding takes ~26 ns a record, report's
// stream ~37 ns), a second gives slack; each more only holds frames in
// flight, about 5 MB apiece: before the cap, a report of one 10M-record file
// peaked at 198 MB with --jobs 16 and 589 MB with --jobs 64 (81 MB with 4).
inline constexpr unsigned kMaxDecoders = 2;
unsigned decoders_per_file(unsigned jobs, size_t files);

}  // namespace gprof::analysis
