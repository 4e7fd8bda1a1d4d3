// Everything `gpuprof diff` found, as every output format renders it: the
// sides, the matched rows and totals, the rules and what failed, and the
// order the tables list the rows in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/comparison/compare/gate.h"
#include "tools/comparison/compare/noise.h"
#include "tools/comparison/compare/row_match.h"
#include "tools/comparison/compare/rule.h"
#include "tools/comparison/compare/rule_sets.h"
#include "tools/comparison/runs/metrics.h"
#include "tools/comparison/runs/run_rows.h"

namespace gprof::comparison {

struct SideInfo {
  std::string argument;                        // as given on the command line
  std::vector<std::vector<std::string>> runs;  // the files of each run
  bool json_report = false;                    // a JSON report rather than sidecar files
};

struct CompareOptions {
  std::vector<Rule> rules;
  // The named set the rules are (--rules, rule_sets.h); empty: --fail-on's.
  std::string rule_set = kDefaultRuleSet;
  double min_time_ns = 0;
  double alpha = kDefaultAlpha;  // the noise test's (noise.h)
  // Rows by the size of this metric's change, largest first (then CPU
  // total's, then the key); nullopt: Self CUDA.
  std::optional<Metric> sort;
  size_t limit = 30;  // rows in the tables besides the failed ones; 0: all
  std::string group_by = "name";
  // The metrics of the text and Markdown tables (--metrics), in this order;
  // empty: count, the CUDA and CPU times, and each memory metric some row has.
  std::vector<Metric> metrics;
  // The text and Markdown tables name kernels by their whole demangled name
  // (JSON and the failure lines always do); otherwise by readable_kernel_name.
  bool full_names = false;
};

// A finding of `gpuprof analyze` (docs/analyze.md) in NEW whose rule found
// nothing in BASE: a mistake the change brought in.
struct NewFinding {
  std::string rule;
  std::string severity;
  std::string summary;
  std::string line;  // "[high] gpu-idle: 12.3ms, 65.0% of the window, in 'data_loader' (100.0%)"
  uint64_t impact_ns = 0;
  double impact_share = 0;
};

struct Comparison {
  SideInfo base;
  SideInfo now;
  CompareOptions options;
  NoiseTest noise;
  Matched matched;
  GateResult gate;
  std::vector<size_t> order;  // every row (index into matched.rows), sorted
  // The rows of the tables: the first `limit` of `order`, then every failed
  // row beyond them, in that order.
  std::vector<size_t> shown;
  // Set by the CLI when both sides are sidecar files (JSON reports hold no
  // timeline to analyze): possibly empty.
  std::optional<std::vector<NewFinding>> new_findings;
};

Comparison compare(SideInfo base, SideInfo now, const std::vector<RunRows>& base_runs,
                   const std::vector<RunRows>& new_runs, CompareOptions options);

// The metrics the tables show: # of Calls, Self CUDA, CUDA total, Self CPU,
// CPU total, then each memory metric that some row has.
std::vector<Metric> shown_metrics(const Comparison& comparison);

// The indices of the rows only in NEW (or only in BASE), in table order.
std::vector<size_t> rows_with_status(const Comparison& comparison, Status status);

}  // namespace gprof::comparison
