#include "tools/findings/rules/rules.h"

namespace gprof::findings {
namespace {

// The one list of rules: --rules, --fail-on, --threshold, --help, the docs'
// table and the JSON's "rules" come from it.
const RuleSpec* const kRules[] = {
    &kGpuIdleRule,        &kLaunchBoundRule, &kExcessiveSyncRule, &kMemcpyDtohSyncRule,
    &kPageableMemcpyRule, &kSmallMemcpyRule, &kStragglerRule,     &kExposedCommRule,
};

}  // namespace

std::span<const RuleSpec* const> all_rules() {
  return kRules;
}

const RuleSpec* find_rule(std::string_view id) {
  for (const RuleSpec* rule : kRules)
    if (rule->id == id) return rule;
  return nullptr;
}

}  // namespace gprof::findings
