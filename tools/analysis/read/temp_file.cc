#include "tools/analysis/read/temp_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace gprof::analysis {
namespace {

// O_TMPFILE makes a file with no name, so nothing is left behind even when
// the process is killed; filesystems without it (before Linux 3.11, some
// network filesystems) get a named file unlinked at once.
int open_anonymous(const std::string& dir) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
#endif
  std::string name = dir + "/gpuprof-XXXXXX";
  const int named = ::mkostemp(name.data(), O_CLOEXEC);
  if (named >= 0) ::unlink(name.c_str());
  return named;
}

std::string where_hint(const std::string& dir, int error) {
  std::string text = " in " + dir + ": " + std::strerror(error);
  if (error == ENOSPC || error == EDQUOT || error == EACCES || error == ENOENT || error == EROFS)
    text += " (set TMPDIR to a directory with room for the temporary files)";
  return text;
}

}  // namespace

std::string TempFile::directory() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && dir[0] != '\0' ? std::string(dir) : std::string("/tmp");
}

TempFile::TempFile(std::string purpose)
    : purpose_(std::move(purpose)), directory_(directory()), fd_(open_anonymous(directory_)) {
  if (fd_ < 0)
    throw std::runtime_error("cannot create a temporary file for " + purpose_ +
                             where_hint(directory_, errno));
}

TempFile::~TempFile() {
  if (fd_ >= 0) ::close(fd_);
}

// pwrite/pread: no buffer between the two directions and no seek state, so
// reads may interleave with appends.
uint64_t TempFile::append(const void* data, size_t bytes) {
  const uint64_t at = size_;
  const char* from = static_cast<const char*>(data);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pwrite(fd_, from + done, bytes - done, static_cast<off_t>(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("cannot write a temporary file for " + purpose_ +
                               where_hint(directory_, n < 0 ? errno : ENOSPC));
    done += static_cast<size_t>(n);
  }
  size_ += bytes;
  return at;
}

void TempFile::read(uint64_t offset, void* data, size_t bytes) const {
  char* to = static_cast<char*>(data);
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(fd_, to + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("cannot read back a temporary file for " + purpose_ +
                               (n < 0 ? where_hint(directory_, errno) : std::string()));
    done += static_cast<size_t>(n);
  }
}

}  // namespace gprof::analysis
