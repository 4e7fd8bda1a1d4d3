#include "tools/findings/rules/median_values.h"

#include <algorithm>
#include <cmath>

namespace gprof::findings {

double MedianValues::median() {
  const size_t n = sorter_.size();
  if (n == 0) return 0;
  // The same arithmetic as analysis::quantile (steps.cc), so that a median
  // does not depend on where its values were kept.
  const double position = 0.5 * static_cast<double>(n - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, n - 1);
  const double fraction = position - static_cast<double>(below);
  auto cursor = sorter_.sorted();
  uint64_t value = 0, low = 0, high = 0;
  for (size_t i = 0; i <= above && cursor.next(value); ++i) {
    if (i == below) low = value;
    if (i == above) high = value;
  }
  return static_cast<double>(low) +
         (static_cast<double>(high) - static_cast<double>(low)) * fraction;
}

}  // namespace gprof::findings
