// The frames of one sidecar file, one at a time, as read_file and the
// parallel reader (pipelined_reader.h) both take them: the preamble checked
// on opening, then each whole frame's payload and checksum, stopping at the
// first thing that cannot be a frame (docs/architecture.md §4.3). Checksums and payloads
// are left to the caller: that work is what the parallel reader spreads.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "formats/read/reader.h"

namespace gprof {

class FrameStream {
 public:
  // Opens `path` and reads its preamble. Fills status.opened,
  // format_version and file_bytes, or status.error when it cannot be read.
  FrameStream(const std::string& path, ReadStatus& status);

  // The next whole frame's payload and checksum. False at the end of the
  // frames: the end of the file, or a partial last frame, a length that
  // cannot be trusted or a read error (status.ignored_bytes and
  // status.error then say which).
  bool next(std::vector<unsigned char>& payload, uint32_t& crc);
  // The offset after the last whole frame.
  uint64_t offset() const { return offset_; }
  // After the last next(): a read error not yet described, and, for a pipe,
  // the size (what was read).
  void finish();

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> file_;
  ReadStatus& status_;
  bool sized_ = false;
  uint64_t offset_ = 0;
};

// Passes each frame's bytes and records to a ReadProgress (reader.h).
class ProgressTally {
 public:
  ProgressTally(ReadProgress* progress, const ReadStatus& status)
      : progress_(progress), status_(status) {}
  // The frames up to `offset` have been delivered.
  void frame(uint64_t offset);
  // The rest of the file: a partial last frame, an early stop, a bad length.
  void end(uint64_t file_bytes);

 private:
  ReadProgress* progress_;
  const ReadStatus& status_;
  uint64_t bytes_ = 0;
  uint64_t records_ = 0;
};

}  // namespace gprof
