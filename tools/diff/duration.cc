#include "tools/diff/duration.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

namespace gprof::diff {

std::optional<double> parse_duration_ns(std::string_view text) {
  // Longest suffix first: "ms" and "ns" end in "s".
  constexpr std::array<std::pair<std::string_view, double>, 4> kUnits = {{
      {"ns", 1.0},
      {"us", 1e3},
      {"ms", 1e6},
      {"s", 1e9},
  }};
  double scale = 0;
  for (const auto& [suffix, ns] : kUnits) {
    if (text.size() > suffix.size() && text.ends_with(suffix)) {
      scale = ns;
      text.remove_suffix(suffix.size());
      break;
    }
  }
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  if (scale == 0) return value == 0 ? std::optional<double>(0) : std::nullopt;
  return value * scale;
}

}  // namespace gprof::diff
