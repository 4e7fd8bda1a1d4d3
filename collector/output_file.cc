#include "collector/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gprof {

int create_output_file(const char* path, unsigned mode, char* chosen, size_t chosen_size) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int n = attempt == 0 ? snprintf(chosen, chosen_size, "%s", path)
                         : snprintf(chosen, chosen_size, "%s.%d", path, attempt);
    if (n < 0 || static_cast<size_t>(n) >= chosen_size) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = open(chosen, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) {
      // The umask must not make a file the user asked to share unreadable.
      fchmod(fd, mode);
      return fd;
    }
    if (errno != EEXIST) return -1;
  }
  errno = EEXIST;
  return -1;
}

int write_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace gprof
