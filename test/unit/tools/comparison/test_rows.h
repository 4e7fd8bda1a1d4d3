// Hand-made rows for the diff tests: a run is a list of rows, its totals
// computed from them as for a sidecar file.
#pragma once

#include <string>
#include <vector>

#include "tools/comparison/compare/comparison.h"
#include "tools/comparison/runs/run_rows.h"

namespace gprof::test {

// A GPU activity row: self = total = `ns`.
comparison::RunRow gpu_row(const std::string& kind, const std::string& name, double count,
                           double ns);
inline comparison::RunRow kernel_row(const std::string& name, double count, double ns) {
  return gpu_row("kernel", name, count, ns);
}
// An API call or range row with its CPU time and the GPU time it issued.
comparison::RunRow cpu_row(const std::string& kind, const std::string& name, double count,
                           double cpu_ns, double cuda_ns = 0);

comparison::RunRows run_of(std::vector<comparison::RunRow> rows);

// The rule texts of a named set (rule_sets.h), for compare_runs.
std::vector<std::string> rule_set_texts(const char* set);

// compare() of the runs with `rules` (parsed; default rules when empty).
comparison::Comparison compare_runs(const std::vector<comparison::RunRows>& base,
                                    const std::vector<comparison::RunRows>& now,
                                    const std::vector<std::string>& rules = {},
                                    double min_time_ns = 0);

}  // namespace gprof::test
