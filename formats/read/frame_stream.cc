#include "formats/read/frame_stream.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "formats/framing.h"

namespace gprof {
namespace {

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

std::string read_error() {
  return std::string("read error: ") + std::strerror(errno);
}

}  // namespace

FrameStream::FrameStream(const std::string& path, ReadStatus& status)
    : file_(std::fopen(path.c_str(), "rb")), status_(status), offset_(kFilePreambleSize) {
  if (!file_) {
    status.error = std::strerror(errno);
    return;
  }
  std::FILE* f = file_.get();
  struct stat st {};
  if (fstat(fileno(f), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      status.error = "is a directory";
      file_.reset();
      return;
    }
    if (S_ISREG(st.st_mode)) {
      sized_ = true;
      status.file_bytes = static_cast<uint64_t>(st.st_size);
    }
  }
  unsigned char preamble[kFilePreambleSize];
  const size_t got = read_fully(f, preamble, sizeof preamble);
  if (got == 0) {
    status.error = std::ferror(f) ? read_error() : "empty file, not a gprof sidecar file";
  } else if (got < sizeof(kFileMagic) ||
             std::memcmp(preamble, kFileMagic, sizeof(kFileMagic)) != 0) {
    status.error = "not a gprof sidecar file (bad magic)";
  } else if (got < sizeof preamble) {
    status.error = "truncated gprof file (" + std::to_string(got) + " bytes, no format version)";
  } else {
    status.format_version = load_le32(preamble + sizeof(kFileMagic));
    if (status.format_version == 0) {
      status.error = "invalid format version 0";
    } else if (status.format_version > kFormatVersion) {
      status.error = "format version " + std::to_string(status.format_version) +
                     " is newer than this gpuprof supports (" + std::to_string(kFormatVersion) +
                     "); upgrade gpuprof";
    } else {
      status.opened = true;
      return;
    }
  }
  file_.reset();
}

bool FrameStream::next(std::vector<unsigned char>& payload, uint32_t& crc) {
  if (!file_) return false;
  std::FILE* f = file_.get();
  unsigned char head[kFrameHeaderSize];
  const size_t got = read_fully(f, head, sizeof head);
  if (got == 0) return false;
  if (got < sizeof head) {
    status_.ignored_bytes += got;
    return false;
  }
  const uint32_t length = load_le32(head);
  const uint64_t end = offset_ + kFrameHeaderSize;
  const uint64_t remaining =
      !sized_ ? UINT64_MAX : (status_.file_bytes > end ? status_.file_bytes - end : 0);
  if (length > kMaxFramePayload) {
    // The length itself is garbage: nothing after it can be located.
    const uint64_t rest = sized_ ? remaining : count_rest(f);
    status_.ignored_bytes += got + rest;
    status_.error = "frame at offset " + std::to_string(offset_) + " claims " +
                    std::to_string(length) + " bytes; the rest of the file (" +
                    std::to_string(got + rest) + " bytes) was ignored";
    return false;
  }
  if (length > remaining) {  // a partial last frame: the process was killed
    status_.ignored_bytes += got + remaining;
    return false;
  }
  payload.resize(length);
  const size_t body = read_fully(f, payload.data(), length);
  if (body < length) {
    status_.ignored_bytes += got + body;
    if (std::ferror(f)) status_.error = read_error();
    return false;
  }
  offset_ += kFrameHeaderSize + length;
  crc = load_le32(head + 4);
  return true;
}

void FrameStream::finish() {
  if (!file_) return;
  if (status_.error.empty() && std::ferror(file_.get())) status_.error = read_error();
  if (!sized_) status_.file_bytes = offset_ + status_.ignored_bytes;  // a pipe: what was read
}

void ProgressTally::frame(uint64_t offset) {
  if (progress_ == nullptr) return;
  const uint64_t records = status_.records + status_.range_events + status_.gpu_records;
  progress_->advanced(offset - bytes_, records - records_);
  bytes_ = offset;
  records_ = records;
}

void ProgressTally::end(uint64_t file_bytes) {
  if (progress_ != nullptr && file_bytes > bytes_) progress_->advanced(file_bytes - bytes_, 0);
  bytes_ = std::max(bytes_, file_bytes);
}

}  // namespace gprof
