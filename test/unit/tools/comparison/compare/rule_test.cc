// --fail-on rules and --min-time: what parses, what each part means, and
// the messages for what does not.
#include <catch2/catch.hpp>

#include <string>

#include "tools/comparison/compare/rule.h"

namespace gprof::comparison {
namespace {

Rule parsed(const std::string& text) {
  const ParsedRule result = parse_rule(text);
  INFO(text << ": " << result.error);
  REQUIRE(result.rule);
  CHECK(result.error.empty());
  return *result.rule;
}

std::string error_of(const std::string& text) {
  const ParsedRule result = parse_rule(text);
  INFO(text);
  REQUIRE_FALSE(result.rule);
  return result.error;
}

TEST_CASE("rule: a metric with a threshold, scope all by default", "[diff][rule]") {
  const Rule rule = parsed("self_cuda:+10");
  CHECK(rule.scope == Scope::kAll);
  CHECK(rule.check == Check::kIncrease);
  CHECK(rule.metric == Metric::kSelfCuda);
  CHECK(rule.percent == 10);
  CHECK(rule_text(rule) == "self_cuda:+10%");
}

TEST_CASE("rule: scopes, percent signs, fractions and zero", "[diff][rule]") {
  const Rule gpu = parsed("gpu.count:+0");
  CHECK(gpu.scope == Scope::kGpu);
  CHECK(gpu.metric == Metric::kCount);
  CHECK(gpu.percent == 0);
  CHECK(rule_text(gpu) == "gpu.count:+0%");

  const Rule api = parsed("api.cpu_total:+2.5%");
  CHECK(api.scope == Scope::kApi);
  CHECK(api.metric == Metric::kCpuTotal);
  CHECK(api.percent == 2.5);
  CHECK(rule_text(api) == "api.cpu_total:+2.5%");
  CHECK(parsed("self_cuda:+.5").percent == 0.5);

  const Rule range = parsed("range.self_cuda_mem:15");  // '+' may be left out
  CHECK(range.scope == Scope::kRange);
  CHECK(range.metric == Metric::kSelfCudaMem);
  CHECK(range.percent == 15);

  CHECK(parsed("all.self_cpu:+5").scope == Scope::kAll);
  CHECK(rule_text(parsed("all.self_cpu:+5")) == "self_cpu:+5%");
}

TEST_CASE("rule: totals have metrics of their own", "[diff][rule]") {
  const Rule rule = parsed("total.self_cuda:+5");
  CHECK(rule.scope == Scope::kTotal);
  CHECK(rule.total == TotalMetric::kSelfCuda);
  CHECK(rule_text(rule) == "total.self_cuda:+5%");
  CHECK(parsed("total.kernels:+0").total == TotalMetric::kKernels);
  CHECK(parsed("total.api_calls:+1").total == TotalMetric::kApiCalls);
  CHECK(error_of("total.count:+1")
            .find("unknown total 'count'; totals: self_cpu, self_cuda, "
                  "kernels, copies, sets, api_calls") != std::string::npos);
}

TEST_CASE("rule: new and vanished take no threshold", "[diff][rule]") {
  const Rule added = parsed("gpu.new");
  CHECK(added.check == Check::kNew);
  CHECK(added.scope == Scope::kGpu);
  CHECK(rule_text(added) == "gpu.new");
  const Rule gone = parsed("vanished");
  CHECK(gone.check == Check::kVanished);
  CHECK(gone.scope == Scope::kAll);
  CHECK(rule_text(gone) == "vanished");
  CHECK(error_of("gpu.new:+5") == "'gpu.new:+5': 'new' takes no threshold");
  CHECK(error_of("total.vanished") ==
        "'total.vanished': new and vanished apply to rows, not to totals");
}

TEST_CASE("rule: bad rules say what is wrong", "[diff][rule]") {
  CHECK(error_of("self_cuda") == "'self_cuda': a threshold is missing: self_cuda:+PERCENT");
  CHECK(error_of("self_cuda:-5").find("'-5' is not a threshold") != std::string::npos);
  CHECK(error_of("self_cuda:+").find("'+' is not a threshold") != std::string::npos);
  CHECK(error_of("self_cuda:+ten").find("'+ten' is not a threshold") != std::string::npos);
  CHECK(error_of("self_cuda:+10%%").find("is not a threshold") != std::string::npos);
  CHECK(error_of("self_cuda:+inf").find("is not a threshold") != std::string::npos);
  CHECK(error_of("gpus.count:+1") ==
        "'gpus.count:+1': unknown scope 'gpus'; scopes: all, gpu, api, range, total");
  CHECK(error_of("cuda_time:+1")
            .find("unknown metric 'cuda_time'; metrics: count, self_cpu, "
                  "cpu_total, self_cuda") != std::string::npos);
  CHECK(error_of("").find("unknown metric ''") != std::string::npos);
}

TEST_CASE("rule: repeated. needs several runs a side", "[diff][rule]") {
  const Rule rule = parsed("repeated.total.self_cpu:+10");
  CHECK(rule.repeated);
  CHECK(rule.scope == Scope::kTotal);
  CHECK(rule.total == TotalMetric::kSelfCpu);
  CHECK(rule_text(rule) == "repeated.total.self_cpu:+10%");
  const Rule both = parsed("repeated.matched.api.cpu_total:+20");
  CHECK(both.repeated);
  CHECK(both.matched);
  CHECK(rule_text(both) == "repeated.matched.api.cpu_total:+20%");
  CHECK(error_of("repeated.gpu.new") ==
        "'repeated.gpu.new': 'repeated.' applies to METRIC:+PCT "
        "rules");
}

TEST_CASE("rule: matched. keeps the rows found on both sides", "[diff][rule]") {
  const Rule rule = parsed("matched.self_cuda:+10");
  CHECK(rule.matched);
  CHECK(rule.scope == Scope::kAll);
  CHECK(rule.metric == Metric::kSelfCuda);
  CHECK(rule_text(rule) == "matched.self_cuda:+10%");
  const Rule gpu = parsed("matched.gpu.count:+0");
  CHECK(gpu.matched);
  CHECK(gpu.scope == Scope::kGpu);
  CHECK(rule_text(gpu) == "matched.gpu.count:+0%");
  CHECK_FALSE(parsed("self_cuda:+10").matched);
  CHECK(error_of("matched.gpu.new").find("new and vanished rows are on one side only") !=
        std::string::npos);
  CHECK(error_of("matched.total.self_cuda:+5") ==
        "'matched.total.self_cuda:+5': 'matched.' applies to rows, not to totals (a total is on "
        "both sides)");
}

TEST_CASE("rule: scopes pick rows by kind", "[diff][rule]") {
  for (const char* kind : {"kernel", "memcpy", "memset"}) {
    CHECK(row_in_scope(Scope::kGpu, kind));
    CHECK_FALSE(row_in_scope(Scope::kApi, kind));
  }
  CHECK(row_in_scope(Scope::kApi, "api"));
  CHECK(row_in_scope(Scope::kRange, "range"));
  CHECK_FALSE(row_in_scope(Scope::kGpu, "memory"));
  CHECK(row_in_scope(Scope::kAll, "memory"));
  CHECK_FALSE(row_in_scope(Scope::kTotal, "kernel"));
}

}  // namespace
}  // namespace gprof::comparison
