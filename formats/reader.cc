#include "formats/reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <vector>

#include "formats/crc32c.h"
#include "formats/frame_decoder.h"
#include "formats/framing.h"

namespace gprof {
namespace {

std::atomic<ReadProgress*> g_progress{nullptr};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Reads up to `size` bytes; fewer only at end of file or on a read error.
size_t read_fully(std::FILE* f, void* data, size_t size) {
  size_t done = 0;
  auto* p = static_cast<unsigned char*>(data);
  while (done < size) {
    size_t n = std::fread(p + done, 1, size - done, f);
    if (n == 0) break;
    done += n;
  }
  return done;
}

// Bytes left in a stream whose size is unknown (a pipe).
uint64_t count_rest(std::FILE* f) {
  unsigned char sink[4096];
  uint64_t total = 0;
  while (size_t n = std::fread(sink, 1, sizeof sink, f)) total += n;
  return total;
}

// Passes each frame's bytes and records to the installed ReadProgress.
class ProgressTally {
 public:
  ProgressTally(ReadProgress* progress, const ReadStatus& status)
      : progress_(progress), status_(status) {}
  void frame(uint64_t offset) {
    if (progress_ == nullptr) return;
    const uint64_t records = status_.records + status_.range_events + status_.gpu_records;
    progress_->advanced(offset - bytes_, records - records_);
    bytes_ = offset;
    records_ = records;
  }
  // The rest of the file: a partial last frame, an early stop, a bad length.
  void end(uint64_t file_bytes) {
    if (progress_ != nullptr && file_bytes > bytes_) progress_->advanced(file_bytes - bytes_, 0);
    bytes_ = std::max(bytes_, file_bytes);
  }

 private:
  ReadProgress* progress_;
  const ReadStatus& status_;
  uint64_t bytes_ = 0;
  uint64_t records_ = 0;
};

// Returns the offset after the last whole frame.
uint64_t read_frames(std::FILE* f, bool sized, RecordVisitor& visitor, ReadStatus& status,
                     ProgressTally& tally) {
  uint64_t offset = kFilePreambleSize;
  std::vector<unsigned char> payload;
  FrameDecoder decoder;
  for (;;) {
    tally.frame(offset);
    unsigned char head[kFrameHeaderSize];
    const size_t got = read_fully(f, head, sizeof head);
    if (got == 0) break;
    if (got < sizeof head) {
      status.ignored_bytes += got;
      break;
    }
    const uint32_t length = load_le32(head);
    const uint32_t crc = load_le32(head + 4);
    const uint64_t end = offset + kFrameHeaderSize;
    const uint64_t remaining =
        !sized ? UINT64_MAX : (status.file_bytes > end ? status.file_bytes - end : 0);
    if (length > kMaxFramePayload) {
      // The length itself is garbage: nothing after it can be located.
      const uint64_t rest = sized ? remaining : count_rest(f);
      status.ignored_bytes += got + rest;
      status.error = "frame at offset " + std::to_string(offset) + " claims " +
                     std::to_string(length) + " bytes; the rest of the file (" +
                     std::to_string(got + rest) + " bytes) was ignored";
      return offset;
    }
    if (length > remaining) {  // a partial last frame: the process was killed
      status.ignored_bytes += got + remaining;
      return offset;
    }
    payload.resize(length);
    const size_t body = read_fully(f, payload.data(), length);
    if (body < length) {
      status.ignored_bytes += got + body;
      if (std::ferror(f)) status.error = std::string("read error: ") + std::strerror(errno);
      return offset;
    }
    offset += kFrameHeaderSize + length;
    if (crc32c(payload.data(), length) != crc) {
      ++status.bad_frames;
      if (!visitor.wants_more()) break;
      continue;
    }
    if (!decoder.deliver(payload.data(), length, visitor, status)) {
      ++status.bad_frames;
      if (!visitor.wants_more()) break;
      continue;
    }
    ++status.frames;
    if (!visitor.wants_more()) break;
  }
  if (std::ferror(f)) status.error = std::string("read error: ") + std::strerror(errno);
  return offset;
}

ReadStatus read_file_impl(const std::string& path, RecordVisitor& visitor, ReadProgress* progress) {
  ReadStatus status;
  ProgressTally tally(progress, status);
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    status.error = std::strerror(errno);
    return status;
  }
  struct stat st {};
  bool sized = false;
  if (fstat(fileno(f.get()), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      status.error = "is a directory";
      return status;
    }
    if (S_ISREG(st.st_mode)) {
      sized = true;
      status.file_bytes = static_cast<uint64_t>(st.st_size);
    }
  }
  unsigned char preamble[kFilePreambleSize];
  const size_t got = read_fully(f.get(), preamble, sizeof preamble);
  if (got == 0) {
    status.error = std::ferror(f.get()) ? std::string("read error: ") + std::strerror(errno)
                                        : "empty file, not a gprof sidecar file";
    return status;
  }
  if (got < sizeof(kFileMagic) || std::memcmp(preamble, kFileMagic, sizeof(kFileMagic)) != 0) {
    status.error = "not a gprof sidecar file (bad magic)";
    return status;
  }
  if (got < sizeof preamble) {
    status.error = "truncated gprof file (" + std::to_string(got) + " bytes, no format version)";
    return status;
  }
  status.format_version = load_le32(preamble + sizeof(kFileMagic));
  if (status.format_version == 0) {
    status.error = "invalid format version 0";
    return status;
  }
  if (status.format_version > kFormatVersion) {
    status.error = "format version " + std::to_string(status.format_version) +
                   " is newer than this gpuprof supports (" + std::to_string(kFormatVersion) +
                   "); upgrade gpuprof";
    return status;
  }
  status.opened = true;
  const uint64_t consumed = read_frames(f.get(), sized, visitor, status, tally);
  tally.frame(consumed);
  if (!sized) status.file_bytes = consumed + status.ignored_bytes;  // a pipe: what was read
  tally.end(status.file_bytes);
  return status;
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

namespace {

ReadStatus read_file_reporting(const std::string& path, RecordVisitor& visitor,
                               ReadProgress* progress) {
  try {
    return read_file_impl(path, visitor, progress);
  } catch (const std::exception& e) {  // std::bad_alloc, or a visitor that threw
    ReadStatus status;
    status.error = std::string("unexpected error: ") + e.what();
    return status;
  }
}

}  // namespace

ReadStatus read_file(const std::string& path, RecordVisitor& visitor) {
  return read_file_reporting(path, visitor, g_progress.load(std::memory_order_acquire));
}

void retract_read_progress(const ReadStatus& status) {
  if (ReadProgress* progress = g_progress.load(std::memory_order_acquire))
    progress->retract(status.file_bytes, status.records + status.range_events + status.gpu_records);
}

void set_read_progress(ReadProgress* progress) {
  g_progress.store(progress, std::memory_order_release);
}

std::optional<pb::FileHeader> read_header(const std::string& path) {
  class HeaderOnly : public RecordVisitor {
   public:
    void on_header(const pb::FileHeader& header) override { header_ = header; }
    bool wants_more() override { return false; }
    std::optional<pb::FileHeader> header_;
  } visitor;
  read_file_reporting(path, visitor, nullptr);
  return visitor.header_;
}

std::string describe_integrity(const ReadStatus& status) {
  if (!status.opened) return "unreadable: " + status.error;
  std::string out = status.complete ? "complete" : "incomplete (no footer";
  if (!status.complete) {
    if (status.ignored_bytes > 0)
      out += ", " + plural(status.ignored_bytes, "byte", "bytes") +
             " after the last whole frame ignored";
    out += ")";
  } else if (status.ignored_bytes > 0) {
    out += ", " + plural(status.ignored_bytes, "trailing byte", "trailing bytes") + " ignored";
  }
  if (status.bad_frames > 0)
    out += ", " + plural(status.bad_frames, "bad frame", "bad frames") + " skipped";
  if (status.skipped_records > 0) {
    out += ", " + plural(status.skipped_records, "record", "records") +
           " of unknown APIs skipped (API id " + std::to_string(status.first_unknown_api) +
           "; written by a newer gprof?)";
  }
  if (!status.error.empty()) out += "; " + status.error;
  return out;
}

}  // namespace gprof
