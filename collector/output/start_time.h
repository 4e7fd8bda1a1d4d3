// The time a file was created, as `%t` in output names puts it:
// 20261122T035700, local time.
//
// glibc's localtime_r and gmtime_r take a lock (tzset_lock) that a fork
// child inherits locked when another thread of the parent held it at fork
// time: the child's writer then hangs until the exit timeout and its file is
// never created. So the offset from UTC is read once, when the library is
// loaded and no other thread runs, and the writer formats with arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gprof {

// Reads the local offset from UTC; only from the constructor.
void capture_utc_offset();

// `epoch_seconds` (UTC) plus `utc_offset_s` as YYYYMMDDTHHMMSS into `out`
// (16 bytes with its NUL). Takes no lock and does not allocate.
void format_compact_time(int64_t epoch_seconds, int64_t utc_offset_s, char* out, size_t size);

// Now, in local time with the captured offset.
void format_start_time(char* out, size_t size);

}  // namespace gprof
