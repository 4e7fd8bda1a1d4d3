// gprof's own messages on stderr, always prefixed "gprof:". Never used on the
// hot path; formats into a stack buffer and write()s, so it does not allocate.
#pragma once

#include <atomic>

namespace gprof {

enum class LogLevel : int { kOff = 0, kError = 1, kWarn = 2, kInfo = 3, kDebug = 4 };

void set_log_level(LogLevel level);
LogLevel log_level();

void log_message(LogLevel level, const char* format, ...) __attribute__((format(printf, 2, 3)));

#define GPROF_WARN(...) ::gprof::log_message(::gprof::LogLevel::kWarn, __VA_ARGS__)
#define GPROF_INFO(...) ::gprof::log_message(::gprof::LogLevel::kInfo, __VA_ARGS__)

}  // namespace gprof
