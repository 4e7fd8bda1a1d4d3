// Matching rows of several runs by key, and the median, min and max of each
// metric over the runs of a side.
#include <catch2/catch.hpp>

#include "test/unit/tools/comparison/test_rows.h"
#include "tools/comparison/compare/row_match.h"
#include "tools/comparison/compare/spread.h"

namespace gprof::comparison {
namespace {

using test::cpu_row;
using test::kernel_row;
using test::run_of;

const MatchedRow& find(const Matched& matched, const std::string& kind, const std::string& name) {
  for (const MatchedRow& row : matched.rows)
    if (row.key.kind == kind && row.key.name == name) return row;
  FAIL("no row " << kind << " " << name);
  throw;
}

TEST_CASE("spread: median of odd and even runs, min, max", "[diff][match]") {
  const Spread odd = spread_of({30, 10, 20});
  CHECK(odd.median == 20);
  CHECK(odd.min == 10);
  CHECK(odd.max == 30);
  const Spread even = spread_of({4, 1, 3, 10});
  CHECK(even.median == 3.5);
  CHECK(even.min == 1);
  CHECK(even.max == 10);
  const Spread one = spread_of({7});
  CHECK((one.median == 7 && one.min == 7 && one.max == 7));
  const Spread none = spread_of({});
  CHECK((none.median == 0 && none.min == 0 && none.max == 0));
}

TEST_CASE("match: one run each, rows matched by kind, name and group", "[diff][match]") {
  RunRow grouped = kernel_row("k", 1, 100);
  grouped.key.group = "stream 7";
  const Matched matched =
      match_runs({run_of({kernel_row("k", 2, 1000), cpu_row("api", "k", 2, 50)})},
                 {run_of({kernel_row("k", 3, 1500), grouped})});
  REQUIRE(matched.rows.size() == 3);  // the api row of the same name and the group are other keys
  CHECK(matched.base_runs == 1);
  CHECK(matched.new_runs == 1);
  const MatchedRow& k = matched.rows[0];
  CHECK(k.key.kind == "kernel");
  CHECK(k.base[Metric::kCount].median == 2);
  CHECK(k.now[Metric::kCount].median == 3);
  CHECK(k.base[Metric::kSelfCuda].median == 1000);
  CHECK(k.now[Metric::kSelfCuda].median == 1500);
  CHECK((k.base.present() && k.now.present()));
  const MatchedRow& api = matched.rows[1];
  CHECK(api.key.kind == "api");
  CHECK(api.base.present());
  CHECK_FALSE(api.now.present());
  CHECK(api.now[Metric::kCpuTotal].median == 0);
  const MatchedRow& by_stream = matched.rows[2];
  CHECK(by_stream.key.group == "stream 7");
  CHECK_FALSE(by_stream.base.present());
  CHECK(by_stream.now.runs_with_row == 1);
}

TEST_CASE("match: several runs, a row missing from a run counts 0 there", "[diff][match]") {
  const Matched matched =
      match_runs({run_of({kernel_row("k", 1, 100), kernel_row("rare", 1, 50)}),
                  run_of({kernel_row("k", 1, 300)}), run_of({kernel_row("k", 1, 200)})},
                 {run_of({kernel_row("k", 1, 400)}), run_of({kernel_row("k", 1, 500)})});
  CHECK(matched.base_runs == 3);
  CHECK(matched.new_runs == 2);
  const MatchedRow& k = find(matched, "kernel", "k");
  CHECK(k.base[Metric::kSelfCuda].median == 200);
  CHECK(k.base[Metric::kSelfCuda].min == 100);
  CHECK(k.base[Metric::kSelfCuda].max == 300);
  CHECK(k.now[Metric::kSelfCuda].median == 450);
  CHECK(k.now[Metric::kSelfCuda].min == 400);
  CHECK(k.now[Metric::kSelfCuda].max == 500);
  const MatchedRow& rare = find(matched, "kernel", "rare");
  CHECK(rare.base.runs_with_row == 1);
  CHECK(rare.base[Metric::kSelfCuda].median == 0);  // 50, 0, 0
  CHECK(rare.base[Metric::kSelfCuda].max == 50);
  CHECK(rare.base[Metric::kCount].min == 0);

  // Totals: Self CUDA of the GPU rows of each run (150, 300, 200 | 400, 500).
  CHECK(matched.base_totals[TotalMetric::kSelfCuda].median == 200);
  CHECK(matched.base_totals[TotalMetric::kSelfCuda].min == 150);
  CHECK(matched.new_totals[TotalMetric::kSelfCuda].median == 450);
  CHECK(matched.base_totals[TotalMetric::kKernels].max == 2);
}

TEST_CASE("match: totals count kernels, copies, sets and API calls", "[diff][match]") {
  const RunRows run = run_of({kernel_row("a", 3, 30), kernel_row("b", 2, 20),
                              test::gpu_row("memcpy", "Memcpy HtoD", 4, 40),
                              test::gpu_row("memset", "Memset (Device)", 1, 5),
                              cpu_row("api", "cudaLaunchKernel", 5, 100, 50),
                              cpu_row("range", "forward", 1, 70, 50)});
  CHECK(run.totals[static_cast<size_t>(TotalMetric::kKernels)] == 5);
  CHECK(run.totals[static_cast<size_t>(TotalMetric::kCopies)] == 4);
  CHECK(run.totals[static_cast<size_t>(TotalMetric::kSets)] == 1);
  CHECK(run.totals[static_cast<size_t>(TotalMetric::kApiCalls)] == 5);
  // Self CUDA of GPU rows only: the API and range rows' GPU time is the same work.
  CHECK(run.totals[static_cast<size_t>(TotalMetric::kSelfCuda)] == 95);
  CHECK(run.totals[static_cast<size_t>(TotalMetric::kSelfCpu)] == 170);
}

}  // namespace
}  // namespace gprof::comparison
