// Times as people write them on a command line (--window, --min-time,
// --busy-bucket): a number with a unit.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gprof::analysis {

// "250ms", "1.5s", "20us", "300ns", "0" -> nanoseconds (decimals exact to the
// nanosecond, finer digits dropped); nullopt for another number without a
// unit, a negative or malformed number, or one too large.
std::optional<int64_t> parse_duration_ns(std::string_view text);

}  // namespace gprof::analysis
