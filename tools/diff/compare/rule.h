// The rules of the gate (docs/diff.md): [SCOPE.]METRIC:+PCT[%] fails a row
// or total whose median grew by more than PCT percent; [SCOPE.]new and
// [SCOPE.]vanished fail rows found on one side only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/diff/runs/metrics.h"

namespace gprof::diff {

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
};

// The gate when no --fail-on is given.
inline constexpr const char* kDefaultRules =
    "self_cuda:+10 total.self_cuda:+5 gpu.count:+0 gpu.new gpu.vanished";
std::vector<Rule> default_rules();

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

}  // namespace gprof::diff
