// A rule of `gpuprof analyze`: its id, what it looks for, its settable
// thresholds with their defaults, and the function that looks. Each rule is
// one file (rule_*.cc) defining its RuleSpec; rules.cc lists them, and the
// CLI's help, the docs' tables and the JSON's thresholds come from that list.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tools/findings/finding.h"
#include "tools/findings/rules/thresholds.h"
#include "tools/findings/timeline/timeline.h"

namespace gprof::findings {

struct RuleContext {
  const std::vector<Timeline>& files;
  const Thresholds& thresholds;
  uint64_t window_ns;  // the files' windows together

  double get(std::string_view rule, std::string_view key) const {
    return thresholds.get(rule, key);
  }
};

using RuleFunction = std::optional<Finding> (*)(const RuleContext& context);

struct RuleSpec {
  std::string_view id;
  std::string_view description;  // one line, for --help and the docs
  std::span<const ThresholdSpec> thresholds;
  RuleFunction run;
};

// Every rule, in the order findings of equal weight are listed.
std::span<const RuleSpec* const> all_rules();
const RuleSpec* find_rule(std::string_view id);

}  // namespace gprof::findings
