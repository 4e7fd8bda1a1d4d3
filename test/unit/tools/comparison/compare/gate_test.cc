// The gate on hand-made rows: thresholds, infinite increases, new and
// vanished rows, totals, --min-time, the noise test and each row's status.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test/unit/tools/comparison/test_rows.h"
#include "tools/comparison/compare/gate.h"
#include "tools/comparison/compare/rule_sets.h"
#include "tools/comparison/render/failure_text.h"

namespace gprof::comparison {
namespace {

using test::compare_runs;
using test::cpu_row;
using test::kernel_row;
using test::run_of;

// "RULE SUBJECT" of every failure, in order.
std::vector<std::string> failures(const Comparison& comparison) {
  std::vector<std::string> out;
  for (const Failure& failure : comparison.gate.failures)
    out.push_back(rule_text(comparison.options.rules[failure.rule]) + " " +
                  failure_subject(comparison, failure));
  return out;
}

const RowVerdict& verdict(const Comparison& comparison, const std::string& name) {
  for (size_t i = 0; i < comparison.matched.rows.size(); ++i)
    if (comparison.matched.rows[i].key.name == name) return comparison.gate.rows[i];
  FAIL("no row " << name);
  throw;
}

TEST_CASE("gate: exceeds is strictly more than the threshold", "[diff][gate]") {
  CHECK(exceeds(100, 111, 10));
  CHECK_FALSE(exceeds(100, 110, 10));  // exactly +10% passes
  CHECK_FALSE(exceeds(100, 90, 10));
  CHECK(exceeds(100, 101, 0));
  CHECK_FALSE(exceeds(100, 100, 0));
  CHECK(exceeds(0, 1, 1000));  // from 0: an infinite increase
  CHECK_FALSE(exceeds(0, 0, 0));
  CHECK(exceeds(-100, -80, 10));  // memory freed: relative to its size
  CHECK_FALSE(exceeds(-100, -95, 10));
}

TEST_CASE("gate: identical runs pass the default gate", "[diff][gate]") {
  const RunRows run =
      run_of({kernel_row("k", 10, 1000), cpu_row("api", "cudaLaunchKernel", 10, 500, 1000)});
  const Comparison comparison = compare_runs({run}, {run});
  CHECK(comparison.gate.failures.empty());
  CHECK_FALSE(comparison.gate.regression());
  CHECK(comparison.gate.failed_rules() == 0);
  CHECK(verdict(comparison, "k").status == Status::kSame);
  CHECK(verdict_line(comparison) == "OK: no rule failed (5 rules)");
}

TEST_CASE("gate: a slower kernel fails self_cuda and the total", "[diff][gate]") {
  const Comparison comparison =
      compare_runs({run_of({kernel_row("slow", 10, 1000), kernel_row("steady", 10, 9000),
                            cpu_row("api", "cudaLaunchKernel", 20, 500, 10000)})},
                   {run_of({kernel_row("slow", 10, 2000), kernel_row("steady", 10, 9000),
                            cpu_row("api", "cudaLaunchKernel", 20, 900, 11000)})});
  // total self_cuda 10000 -> 11000: +10% > 5%. The API row's +10% is not more than 10%; its
  // CPU time (+80%) is judged by no rule with one run a side.
  CHECK(failures(comparison) == std::vector<std::string>{"total.self_cuda:+5% Self CUDA time total",
                                                         "matched.self_cuda:+10% kernel slow"});
  CHECK(comparison.gate.failed_rules() == 2);
  CHECK(verdict(comparison, "slow").status == Status::kRegression);
  CHECK(verdict(comparison, "steady").status == Status::kSame);
  CHECK(verdict(comparison, "cudaLaunchKernel").status == Status::kChanged);
  CHECK(verdict_line(comparison) ==
        "REGRESSION: 2 of 5 rules failed: 2 failures on 1 row and 1 total");
  CHECK(failure_line(comparison, comparison.gate.failures[1], "->") ==
        "kernel slow: matched.self_cuda:+10%: 1.000us -> 2.000us (+1.000us, +100.0%)");
}

TEST_CASE("gate: the CPU total fails the default gate when the runs can judge it", "[diff][gate]") {
  const auto run = [](double cpu_ns) {
    return run_of({kernel_row("k", 1, 1000), cpu_row("api", "cudaMalloc", 1, cpu_ns)});
  };
  // One run a side: CPU times move by more than 10% from run to run anyway.
  const Comparison once = compare_runs({run(1000)}, {run(2000)});
  CHECK(failures(once).empty());
  CHECK(rules_line(once).find("; repeated.total.self_cpu:+10% not judged (it needs several runs "
                              "a side)") != std::string::npos);
  // Three runs a side, every NEW run above every BASE run: beyond the noise.
  const Comparison repeated =
      compare_runs({run(1000), run(1010), run(990)}, {run(1200), run(1210), run(1190)});
  CHECK(failures(repeated) ==
        std::vector<std::string>{"repeated.total.self_cpu:+10% Self CPU time total"});
  CHECK(rules_line(repeated).find("not judged") == std::string::npos);
}

// BAD launches many tiny kernels through pageable copies; GOOD does the same
// work in one kernel through pinned memory, inside a range of its own: the
// kernels and copies were renamed, added and removed, and everything is
// faster. (The issue: a 78% faster run failed 4 of 5 rules.)
RunRows bad_run() {
  return run_of({kernel_row("tiny_kernel", 1000, 60e6),
                 test::gpu_row("memcpy", "Memcpy HtoD (Pageable -> Device)", 10, 14e6),
                 cpu_row("range", "step", 1, 90e6, 74e6),
                 cpu_row("api", "cudaLaunchKernel", 1000, 5e6, 60e6)});
}
RunRows good_run() {
  return run_of({kernel_row("fused_kernel", 1, 1e6),
                 test::gpu_row("memcpy", "Memcpy HtoD (Pinned -> Device)", 1, 15e6),
                 cpu_row("range", "step", 1, 20e6, 16e6), cpu_row("range", "upload", 1, 1e6, 15e6),
                 cpu_row("api", "cudaLaunchKernel", 1, 0.1e6, 1e6)});
}

TEST_CASE("gate: the default gate passes an improvement that renamed rows", "[diff][gate]") {
  const Comparison comparison = compare_runs({bad_run()}, {good_run()});
  CHECK(failures(comparison).empty());
  CHECK_FALSE(comparison.gate.regression());
  for (const char* name : {"fused_kernel", "Memcpy HtoD (Pinned -> Device)", "upload"}) {
    CHECK(verdict(comparison, name).status == Status::kNew);
    CHECK_FALSE(verdict(comparison, name).failed);
  }
  CHECK(verdict(comparison, "tiny_kernel").status == Status::kVanished);
  CHECK_FALSE(verdict(comparison, "tiny_kernel").failed);
  // The other way round the run is slower: the totals and the matched rows say so, and the
  // rows that appeared are still no failures of their own.
  const Comparison worse = compare_runs({good_run()}, {bad_run()});
  CHECK(failures(worse) == std::vector<std::string>{"total.self_cuda:+5% Self CUDA time total",
                                                    "matched.self_cuda:+10% api cudaLaunchKernel",
                                                    "matched.self_cuda:+10% range step",
                                                    "matched.range.cuda_total:+10% range step"});
}

TEST_CASE("gate: the strict set fails rows that appeared or vanished", "[diff][gate]") {
  const Comparison comparison =
      compare_runs({bad_run()}, {good_run()}, test::rule_set_texts(kStrictRules));
  CHECK(failures(comparison) ==
        std::vector<std::string>{
            "self_cuda:+10% memcpy Memcpy HtoD (Pinned -> Device)", "self_cuda:+10% range upload",
            "self_cuda:+10% kernel fused_kernel", "gpu.count:+0% kernel fused_kernel",
            "gpu.count:+0% memcpy Memcpy HtoD (Pinned -> Device)", "gpu.new kernel fused_kernel",
            "gpu.new memcpy Memcpy HtoD (Pinned -> Device)", "gpu.vanished kernel tiny_kernel",
            "gpu.vanished memcpy Memcpy HtoD (Pageable -> Device)"});
  // From nothing the amount is given, not an infinite percentage.
  CHECK(failure_line(comparison, comparison.gate.failures[0], "->") ==
        "memcpy Memcpy HtoD (Pinned -> Device): self_cuda:+10%: 0.000us -> 15.000ms (new: "
        "15.000ms)");
}

TEST_CASE("gate: a new row fails the default gate through a total it makes grow", "[diff][gate]") {
  const Comparison comparison =
      compare_runs({run_of({kernel_row("k", 1, 10000)})},
                   {run_of({kernel_row("k", 1, 10000), kernel_row("added", 1, 5000)})});
  CHECK(failures(comparison) ==
        std::vector<std::string>{"total.self_cuda:+5% Self CUDA time total"});
  CHECK(verdict(comparison, "added").status == Status::kNew);
  CHECK_FALSE(verdict(comparison, "added").failed);
}

TEST_CASE("gate: one more launch fails gpu.count:+0", "[diff][gate]") {
  const Comparison comparison =
      compare_runs({run_of({kernel_row("k", 10, 10000)})}, {run_of({kernel_row("k", 11, 10000)})},
                   {"gpu.count:+0"});
  CHECK(failures(comparison) == std::vector<std::string>{"gpu.count:+0% kernel k"});
  CHECK(comparison.gate.failures[0].base.median == 10);
  CHECK(comparison.gate.failures[0].now.median == 11);
}

TEST_CASE("gate: new and vanished rows", "[diff][gate]") {
  const Comparison comparison =
      compare_runs({run_of({kernel_row("kept", 1, 100), kernel_row("gone", 2, 100),
                            cpu_row("api", "cudaMemset", 1, 10)})},
                   {run_of({kernel_row("kept", 1, 100), kernel_row("added", 3, 100),
                            cpu_row("api", "cudaMemcpy", 1, 10)})},
                   {"gpu.new", "gpu.vanished"});
  // API rows are outside the gpu scope: listed, not failed.
  CHECK(failures(comparison) ==
        std::vector<std::string>{"gpu.new kernel added", "gpu.vanished kernel gone"});
  CHECK(verdict(comparison, "added").status == Status::kNew);
  CHECK(verdict(comparison, "added").failed);
  CHECK(verdict(comparison, "gone").status == Status::kVanished);
  CHECK(verdict(comparison, "cudaMemcpy").status == Status::kNew);
  CHECK_FALSE(verdict(comparison, "cudaMemcpy").failed);
  CHECK(failure_line(comparison, comparison.gate.failures[0], "->") ==
        "kernel added: gpu.new: not in BASE, 3 calls in NEW");
  CHECK(failure_line(comparison, comparison.gate.failures[1], "->") ==
        "kernel gone: gpu.vanished: 2 calls in BASE, not in NEW");
}

TEST_CASE("gate: a row from zero is an infinite increase", "[diff][gate]") {
  const Comparison comparison =
      compare_runs({run_of({cpu_row("range", "step", 1, 1000, 0)})},
                   {run_of({cpu_row("range", "step", 1, 1000, 500)})}, {"range.self_cuda:+1000"});
  CHECK(failures(comparison) == std::vector<std::string>{"range.self_cuda:+1000% range step"});
  CHECK(failure_line(comparison, comparison.gate.failures[0], "->") ==
        "range step: range.self_cuda:+1000%: 0.000us -> 0.500us (new: 0.500us)");
}

TEST_CASE("gate: scopes limit the rows a rule checks", "[diff][gate]") {
  const Comparison comparison =
      compare_runs({run_of({kernel_row("k", 1, 100), cpu_row("api", "cudaMalloc", 1, 100)})},
                   {run_of({kernel_row("k", 1, 200), cpu_row("api", "cudaMalloc", 1, 200)})},
                   {"api.cpu_total:+50", "gpu.cpu_total:+0", "range.self_cuda:+0"});
  CHECK(failures(comparison) == std::vector<std::string>{"api.cpu_total:+50% api cudaMalloc"});
}

TEST_CASE("gate: rows under --min-time never fail but are still shown", "[diff][gate]") {
  const Comparison comparison =
      compare_runs({run_of({kernel_row("tiny", 1, 100), kernel_row("big", 1, 100000),
                            kernel_row("tiny_gone", 1, 100)})},
                   {run_of({kernel_row("tiny", 1, 900), kernel_row("big", 1, 200000)})},
                   {"self_cuda:+10", "gpu.vanished", "total.self_cuda:+5"}, 1000);
  // Totals are no rows: --min-time leaves them alone.
  CHECK(failures(comparison) ==
        std::vector<std::string>{"self_cuda:+10% kernel big",
                                 "total.self_cuda:+5% Self CUDA time total"});
  CHECK(verdict(comparison, "tiny").below_min_time);
  CHECK(verdict(comparison, "tiny").status == Status::kChanged);
  CHECK(verdict(comparison, "tiny_gone").status == Status::kVanished);
  CHECK_FALSE(verdict(comparison, "tiny_gone").failed);
  CHECK_FALSE(verdict(comparison, "big").below_min_time);
  CHECK(comparison.shown.size() == 3);
}

TEST_CASE("gate: with several runs, overlapping ranges do not fail", "[diff][gate]") {
  // 19-22 us kernels: medians 19 -> 22 us (+15.8%) but the ranges overlap.
  auto runs = [](std::vector<double> us) {
    std::vector<RunRows> out;
    for (double t : us) out.push_back(run_of({kernel_row("k", 1, t * 1000)}));
    return out;
  };
  const Comparison noisy = compare_runs(runs({19, 19, 22}), runs({19, 22, 22}));
  CHECK(noisy.gate.failures.empty());
  CHECK(verdict(noisy, "k").status == Status::kChanged);
  CHECK(verdict(noisy, "k").within_noise);

  const Comparison real = compare_runs(runs({19, 20, 21}), runs({22, 23, 22.5}));
  CHECK(failures(real) == std::vector<std::string>{"total.self_cuda:+5% Self CUDA time total",
                                                   "matched.self_cuda:+10% kernel k"});
  CHECK_FALSE(verdict(real, "k").within_noise);
  CHECK(failure_line(real, real.gate.failures[1], "->") ==
        "kernel k: matched.self_cuda:+10%: 20.000us -> 22.500us (+2.500us, +12.5%); runs: BASE "
        "19.000us..21.000us, NEW 22.000us..23.000us");

  // Ranges apart but the medians within the threshold: no failure either.
  const Comparison small = compare_runs(runs({20, 20, 20}), runs({21, 21, 21}));
  CHECK(small.gate.failures.empty());
}

TEST_CASE("gate: a new row must be in every NEW run to fail", "[diff][gate]") {
  const RunRows plain = run_of({kernel_row("k", 1, 100)});
  const RunRows extra = run_of({kernel_row("k", 1, 100), kernel_row("sometimes", 1, 100)});
  const Comparison once = compare_runs({plain, plain}, {plain, extra}, {"gpu.new"});
  CHECK(once.gate.failures.empty());
  CHECK(verdict(once, "sometimes").status == Status::kNew);
  const Comparison always = compare_runs({plain, plain}, {extra, extra}, {"gpu.new"});
  CHECK(failures(always) == std::vector<std::string>{"gpu.new kernel sometimes"});
}

TEST_CASE("gate: failures of a rule are ordered by the size of the change", "[diff][gate]") {
  const Comparison comparison = compare_runs(
      {run_of({kernel_row("a", 1, 100), kernel_row("b", 1, 100), kernel_row("c", 1, 100)})},
      {run_of({kernel_row("a", 1, 200), kernel_row("b", 1, 900), kernel_row("c", 1, 400)})},
      {"self_cuda:+10"});
  CHECK(failures(comparison) == std::vector<std::string>{"self_cuda:+10% kernel b",
                                                         "self_cuda:+10% kernel c",
                                                         "self_cuda:+10% kernel a"});
}

}  // namespace
}  // namespace gprof::comparison
