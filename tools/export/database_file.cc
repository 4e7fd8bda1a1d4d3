#include "tools/export/database_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

namespace gprof::exporter {
namespace {

// The temporary file an interrupted export must not leave behind. A signal
// handler may only use what is async-signal-safe: a fixed buffer and
// unlink(2).
char g_temp[4096];
std::atomic<bool> g_armed{false};

extern "C" void remove_and_die(int sig) {
  if (g_armed.load()) ::unlink(g_temp);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void arm(const std::string& temp) {
  if (temp.size() >= sizeof(g_temp)) return;
  std::memcpy(g_temp, temp.c_str(), temp.size() + 1);
  g_armed.store(true);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) std::signal(sig, remove_and_die);
}

void disarm() {
  g_armed.store(false);
}

bool sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  return ::close(fd) == 0 && ok;
}

}  // namespace

DatabaseFile::DatabaseFile(std::string path)
    : path_(std::move(path)), temp_(fmt::format("{}.tmp-{}", path_, ::getpid())) {
  ::unlink(temp_.c_str());  // a leftover of a killed export with our pid
  arm(temp_);
}

DatabaseFile::~DatabaseFile() {
  if (!committed_) ::unlink(temp_.c_str());
  disarm();
}

bool DatabaseFile::create(std::string& error) {
  const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    error = fmt::format("cannot create {}: {}", temp_, std::strerror(errno));
    return false;
  }
  ::close(fd);
  return true;
}

bool DatabaseFile::commit(std::string& error) {
  if (!sync_file(temp_)) {
    error = fmt::format("cannot write {}: {}", temp_, std::strerror(errno));
    return false;
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    error = fmt::format("cannot rename {} to {}: {}", temp_, path_, std::strerror(errno));
    return false;
  }
  committed_ = true;
  disarm();
  return true;
}

}  // namespace gprof::exporter
