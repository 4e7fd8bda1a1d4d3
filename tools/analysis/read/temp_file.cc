#include "tools/analysis/read/temp_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace gprof::analysis {

TempFile::TempFile(std::string purpose) : purpose_(std::move(purpose)), file_(std::tmpfile()) {
  if (!file_)
    throw std::runtime_error("cannot create a temporary file for " + purpose_ + ": " +
                             std::strerror(errno));
}

// pwrite/pread on the descriptor: no stdio buffer between the two directions,
// and no seek state, so reads may interleave with appends.
uint64_t TempFile::append(const void* data, size_t bytes) {
  const uint64_t at = size_;
  const char* from = static_cast<const char*>(data);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n =
        ::pwrite(fileno(file_.get()), from + done, bytes - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("cannot write a temporary file for " + purpose_ + ": " +
                               std::strerror(n < 0 ? errno : ENOSPC));
    done += static_cast<size_t>(n);
  }
  size_ += bytes;
  return at;
}

void TempFile::read(uint64_t offset, void* data, size_t bytes) const {
  char* to = static_cast<char*>(data);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n =
        ::pread(fileno(file_.get()), to + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("cannot read back a temporary file for " + purpose_ +
                               (n < 0 ? std::string(": ") + std::strerror(errno) : ""));
    done += static_cast<size_t>(n);
  }
}

}  // namespace gprof::analysis
