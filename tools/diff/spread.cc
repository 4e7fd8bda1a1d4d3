#include "tools/diff/spread.h"

#include <algorithm>

namespace gprof::diff {

Spread spread_of(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  const double median =
      values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  return Spread{median, values.front(), values.back()};
}

}  // namespace gprof::diff
