#include "tools/gpuprof/info/file_state.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <filesystem>
#include <optional>

#include "formats/read/reader.h"

namespace gprof::cli {
namespace {

// The shim writes whenever records arrive (every GPROF_FLUSH_INTERVAL_MS):
// a file modified this recently may still have a writer.
constexpr time_t kRecentSeconds = 10;

std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

// Whether `pid` has the file open. nullopt: cannot tell (another user's
// process, no /proc).
std::optional<bool> holds_file(uint32_t pid, const struct stat& file) {
  std::error_code error;
  std::filesystem::directory_iterator fds("/proc/" + std::to_string(pid) + "/fd", error);
  if (error) return std::nullopt;
  for (const auto& fd : fds) {
    struct stat target {};
    if (stat(fd.path().c_str(), &target) == 0 && target.st_dev == file.st_dev &&
        target.st_ino == file.st_ino)
      return true;
  }
  return false;
}

bool running(uint32_t pid) {
  return pid != 0 && (kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

}  // namespace

Writer file_writer(const analysis::FileInfo& file) {
  if (file.status.complete) return Writer::kFinished;
  struct stat st {};
  if (stat(file.path.c_str(), &st) != 0) return Writer::kEnded;
  if (file.header && !file.header->host().empty() && file.header->host() == this_host()) {
    const uint32_t pid = file.header->pid();
    // A pid that runs but does not hold the file is another process that
    // got the number since.
    if (running(pid) && holds_file(pid, st).value_or(true)) return Writer::kRunning;
    return Writer::kEnded;
  }
  return std::time(nullptr) - st.st_mtime <= kRecentSeconds ? Writer::kRecent : Writer::kEnded;
}

std::string integrity_text(const analysis::FileInfo& file) {
  const std::string integrity = describe_integrity(file.status);
  const uint32_t pid = file.header ? file.header->pid() : 0;
  switch (file_writer(file)) {
    case Writer::kFinished:
      break;
    case Writer::kRunning:
      return fmt::format(
          "still being written (pid {} is running): {}; it gets its footer when the process "
          "ends",
          pid, integrity);
    case Writer::kRecent:
      return fmt::format(
          "possibly still being written (modified in the last {} s{}): {}", kRecentSeconds,
          file.header ? fmt::format(", by pid {} on {}", pid, file.header->host()) : "", integrity);
    case Writer::kEnded:
      return integrity +
             ": the recording process ended without finishing the file (killed or crashed?)";
  }
  return integrity;
}

}  // namespace gprof::cli
