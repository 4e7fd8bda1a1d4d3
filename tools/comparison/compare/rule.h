// The rules of the gate (docs/diff.md):
// [repeated.][matched.][SCOPE.]METRIC:+PCT[%] fails a row or total whose
// median grew by more than PCT percent (with "matched.", only rows found on
// both sides; with "repeated.", only when the runs allow a noise test);
// [SCOPE.]new and [SCOPE.]vanished fail rows found on one side only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/comparison/runs/metrics.h"

namespace gprof::comparison {

enum class Scope : uint8_t {
  kAll,    // every row
  kGpu,    // kernels, copies, sets
  kApi,    // CUDA API calls
  kRange,  // NVTX ranges
  kTotal,  // the run's totals (metrics of their own: total_name())
};

enum class Check : uint8_t { kIncrease, kNew, kVanished };

struct Rule {
  Scope scope = Scope::kAll;
  Check check = Check::kIncrease;
  Metric metric = Metric::kCount;              // kIncrease on rows
  TotalMetric total = TotalMetric::kSelfCuda;  // kIncrease on totals
  double percent = 0;
  // kIncrease on rows found on both sides only ("matched."): a row that
  // appeared or vanished has no percentage (from 0 every increase is
  // infinite), and a renamed kernel is no regression; what it costs shows in
  // the totals.
  bool matched = false;
  // Judged only when the noise test can reach its alpha ("repeated."): CPU
  // times of one run against another differ by several times on a busy
  // machine (4 identical runs of a test program: 9.6 to 61.5 ms), so one
  // run a side cannot tell a CPU regression from the scheduler.
  bool repeated = false;
};

struct ParsedRule {
  std::optional<Rule> rule;
  std::string error;  // when rule is nullopt: what is wrong, for "--fail-on: ..."
};
ParsedRule parse_rule(std::string_view text);

// The rule as parse_rule reads it back: "self_cuda:+10%", "gpu.new",
// "total.self_cuda:+5%".
std::string rule_text(const Rule& rule);

std::string_view scope_name(Scope scope);

// Whether a row of `kind` (RowKey::kind) is one the rule looks at.
bool row_in_scope(Scope scope, std::string_view kind);

}  // namespace gprof::comparison
