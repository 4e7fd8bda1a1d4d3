// A metric over the runs of one side: the median is what is compared, the
// runs' values are what the noise test ranks.
#pragma once

#include <vector>

namespace gprof::comparison {

struct Spread {
  double median = 0;
  double min = 0;
  double max = 0;
  std::vector<double> values;  // one per run, ascending
};

// Of one value per run; the median of an even number of runs is the mean of
// the middle two. All zero for no runs.
Spread spread_of(std::vector<double> values);

}  // namespace gprof::comparison
