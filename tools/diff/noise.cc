#include "tools/diff/noise.h"

#include <fmt/format.h>

namespace gprof::diff {

bool NoiseTest::increase_beyond(const Spread& base, const Spread& now) const {
  return !applies() || now.min > base.max;
}

bool NoiseTest::within_noise(const Spread& base, const Spread& now) const {
  return applies() && base.median != now.median && now.min <= base.max && now.max >= base.min;
}

double NoiseTest::p_value() const {
  // 1 / C(n + m, n), built up as a product so that it never overflows.
  double p = 1;
  for (size_t i = 1; i <= base_runs_; ++i)
    p *= static_cast<double>(i) / static_cast<double>(new_runs_ + i);
  return p;
}

std::string NoiseTest::description() const {
  if (!applies())
    return "noise test: none (one run on each side; give each side several runs to tell "
           "changes from noise)";
  return fmt::format(
      "noise test: ranges of {} base and {} new runs must not overlap (one-sided Mann-Whitney "
      "U = 0, p = {:.2g})",
      base_runs_, new_runs_, p_value());
}

}  // namespace gprof::diff
