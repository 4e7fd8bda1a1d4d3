// --rules NAME: the default gate judges totals and rows found on both sides;
// strict, the gate before it, also fails rows that appeared or vanished.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "tools/comparison/compare/rule_sets.h"

namespace gprof::comparison {
namespace {

std::string texts(const std::vector<Rule>& rules) {
  std::string out;
  for (const Rule& rule : rules) out += (out.empty() ? "" : " ") + rule_text(rule);
  return out;
}

TEST_CASE("rule sets: the default gate judges totals and matched rows", "[diff][rule]") {
  CHECK(texts(default_rules()) ==
        "total.self_cuda:+5% repeated.total.self_cpu:+10% matched.self_cuda:+10% "
        "matched.range.cuda_total:+10% matched.gpu.count:+0%");
  // No rule of it fails a row for being on one side only.
  for (const Rule& rule : default_rules()) {
    CHECK(rule.check == Check::kIncrease);
    CHECK((rule.scope == Scope::kTotal || rule.matched));
  }
  CHECK(texts(*rule_set("default")) == texts(default_rules()));
}

TEST_CASE("rule sets: strict is the gate before, new and vanished rows fail", "[diff][rule]") {
  const std::optional<std::vector<Rule>> strict = rule_set("strict");
  REQUIRE(strict);
  CHECK(texts(*strict) == "self_cuda:+10% total.self_cuda:+5% gpu.count:+0% gpu.new gpu.vanished");
}

TEST_CASE("rule sets: names", "[diff][rule]") {
  CHECK(rule_set_names() == "default, strict");
  CHECK_FALSE(rule_set("lenient"));
  CHECK_FALSE(rule_set(""));
}

}  // namespace
}  // namespace gprof::comparison
