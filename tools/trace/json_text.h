// The pieces of trace-event JSON that need care: strings (names come from the
// profiled program and may hold anything) and times, which the format wants
// in microseconds while the files hold nanoseconds.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>

namespace gprof::trace {

using Buffer = fmt::memory_buffer;

// `text` as a JSON string, quotes included: '"', '\\' and control
// characters escaped; other bytes as they are (names are UTF-8).
void append_json_string(Buffer& out, std::string_view text);

// Nanoseconds as microseconds with exactly three decimals, so that no
// precision is lost and no float rounding happens: 1234567 -> "1234.567",
// -5 -> "-0.005".
void append_microseconds(Buffer& out, int64_t ns);

}  // namespace gprof::trace
