// --min-time: a time with its unit, as people write it on a command line.
#pragma once

#include <optional>
#include <string_view>

namespace gprof::diff {

// "0", "500ns", "20us", "1.5ms", "2s" -> nanoseconds; nullopt for anything
// else, negative times included. A bare number other than 0 needs a unit.
std::optional<double> parse_duration_ns(std::string_view text);

}  // namespace gprof::diff
