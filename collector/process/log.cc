#include "collector/process/log.h"

#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>

namespace gprof {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};

}  // namespace

void set_log_level(LogLevel level) {
  g_level.store(static_cast<int>(level));
}
LogLevel log_level() {
  return static_cast<LogLevel>(g_level.load(std::memory_order_relaxed));
}

void log_message(LogLevel level, const char* format, ...) {
  if (static_cast<int>(level) > g_level.load(std::memory_order_relaxed)) return;
  int saved_errno = errno;  // the host may be between a call and its errno check
  char line[1024];
  int n = snprintf(line, sizeof line, "gprof: ");
  va_list args;
  va_start(args, format);
  int m = vsnprintf(line + n, sizeof line - static_cast<size_t>(n) - 1, format, args);
  va_end(args);
  size_t length = static_cast<size_t>(n) + (m < 0 ? 0 : static_cast<size_t>(m));
  if (length > sizeof line - 2) length = sizeof line - 2;
  line[length++] = '\n';
  for (size_t done = 0; done < length;) {
    ssize_t w = write(STDERR_FILENO, line + done, length - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += static_cast<size_t>(w);
  }
  errno = saved_errno;
}

}  // namespace gprof
