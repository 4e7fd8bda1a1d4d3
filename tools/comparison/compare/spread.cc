#include "tools/comparison/compare/spread.h"

#include <algorithm>
#include <utility>

namespace gprof::comparison {

Spread spread_of(std::vector<double> values) {
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  const double median =
      values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  const double min = values.front();
  const double max = values.back();
  return Spread{median, min, max, std::move(values)};
}

}  // namespace gprof::comparison
