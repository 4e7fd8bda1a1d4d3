#include "tools/analysis/render/duration.h"

#include <array>
#include <utility>

namespace gprof::analysis {
namespace {

constexpr std::array<std::pair<std::string_view, int64_t>, 4> kUnits = {
    {{"ns", 1}, {"us", 1'000}, {"ms", 1'000'000}, {"s", 1'000'000'000}}};

bool all_digits(std::string_view text) {
  return text.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::optional<int64_t> parse_duration_ns(std::string_view text) {
  if (text == "0") return 0;  // nothing needs no unit
  for (const auto& [suffix, scale] : kUnits) {
    if (!text.ends_with(suffix)) continue;
    const std::string_view number = text.substr(0, text.size() - suffix.size());
    // "ms" also ends in "s": a number never ends in a letter.
    if (number.empty() || !(number.back() == '.' || (number.back() >= '0' && number.back() <= '9')))
      continue;
    const size_t dot = number.find('.');
    const std::string_view whole = number.substr(0, dot);
    const std::string_view fraction =
        dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
    if ((whole.empty() && fraction.empty()) || !all_digits(whole) || !all_digits(fraction))
      return std::nullopt;
    int64_t ns = 0;
    for (char c : whole) {
      if (ns > (INT64_MAX / scale - 9) / 10) return std::nullopt;
      ns = ns * 10 + (c - '0');
    }
    ns *= scale;
    int64_t place = scale;
    for (char c : fraction) {
      place /= 10;
      ns += (c - '0') * place;
    }
    return ns;
  }
  return std::nullopt;
}

}  // namespace gprof::analysis
