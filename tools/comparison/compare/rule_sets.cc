#include "tools/comparison/compare/rule_sets.h"

#include <array>
#include <sstream>
#include <utility>

namespace gprof::comparison {
namespace {

constexpr std::array<std::pair<std::string_view, const char*>, 2> kSets = {{
    {kDefaultRuleSet, kDefaultRules},
    {"strict", kStrictRules},
}};

std::vector<Rule> parse_all(const char* texts) {
  std::vector<Rule> rules;
  std::istringstream words(texts);
  // The sets are constants that rule_sets_test parses: every word is a rule.
  for (std::string word; words >> word;) rules.push_back(*parse_rule(word).rule);
  return rules;
}

}  // namespace

std::string rule_set_names() {
  std::string out;
  for (const auto& [name, rules] : kSets) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::optional<std::vector<Rule>> rule_set(std::string_view name) {
  for (const auto& [set, rules] : kSets)
    if (set == name) return parse_all(rules);
  return std::nullopt;
}

std::vector<Rule> default_rules() {
  return *rule_set(kDefaultRuleSet);
}

}  // namespace gprof::comparison
