#include "collector/output/output_file.h"

#include <fcntl.h>
#include <sys/resource.h>
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

int write_all_at(int fd, const void* data, size_t size, uint64_t offset) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = pwrite(fd, p, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return 0;
}

int move_to_high_descriptor(int fd) {
  // Three quarters of the way to the soft limit (768 of the usual 1024): above
  // the numbers programs and launchers dup2() onto, below the top that
  // programs probing for free descriptors start from.
  rlimit limit{};
  rlim_t top = 1024;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    top = limit.rlim_cur;
  if (top > 65536) top = 65536;
  const int base = static_cast<int>(top / 4 * 3);
  if (fd >= base) return fd;
  const int high = fcntl(fd, F_DUPFD_CLOEXEC, base);
  if (high < 0) return fd;
  close(fd);
  return high;
}

bool identify(int fd, FileIdentity& out) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return false;
  out.device = static_cast<uint64_t>(st.st_dev);
  out.inode = static_cast<uint64_t>(st.st_ino);
  return true;
}

void absolute_path(const char* path, char* out, size_t size) {
  char cwd[4096];
  if (path[0] != '/' && getcwd(cwd, sizeof cwd)) {
    const int n = snprintf(out, size, "%s/%s", cwd, path);
    if (n > 0 && static_cast<size_t>(n) < size) return;
  }
  snprintf(out, size, "%s", path);
}

bool is_dev_null(int fd) {
  struct stat st {
  }, null{};
  return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 &&
         st.st_rdev == null.st_rdev;
}

int reopen_output_file(const char* path, const FileIdentity& expected) {
  const int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  FileIdentity found;
  if (!identify(fd, found) || found.device != expected.device || found.inode != expected.inode) {
    close(fd);
    errno = ESTALE;
    return -1;
  }
  return move_to_high_descriptor(fd);
}

}  // namespace gprof
