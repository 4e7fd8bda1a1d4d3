// The order of the rows, --limit (failed rows always listed), --sort, and
// which metric columns the tables show.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test/unit/tools/comparison/test_rows.h"
#include "tools/comparison/compare/comparison.h"

namespace gprof::comparison {
namespace {

using test::cpu_row;
using test::kernel_row;
using test::run_of;

std::vector<std::string> names(const Comparison& comparison, const std::vector<size_t>& rows) {
  std::vector<std::string> out;
  for (size_t i : rows) out.push_back(comparison.matched.rows[i].key.name);
  return out;
}

Comparison with(CompareOptions options, const std::vector<RunRows>& base,
                const std::vector<RunRows>& now) {
  if (options.rules.empty()) options.rules = default_rules();
  return compare(SideInfo{"b", {{"b"}}, false}, SideInfo{"n", {{"n"}}, false}, base, now,
                 std::move(options));
}

const std::vector<RunRows> kBase = {
    run_of({kernel_row("small", 1, 1000), kernel_row("large", 1, 1000),
            cpu_row("api", "cpu_only", 1, 1000, 0), kernel_row("same", 1, 1000)})};
const std::vector<RunRows> kNew = {
    run_of({kernel_row("small", 1, 1050), kernel_row("large", 1, 5000),
            cpu_row("api", "cpu_only", 1, 9000, 0), kernel_row("same", 1, 1000)})};

TEST_CASE("order: by Self CUDA change, then CPU total change, then key", "[diff][order]") {
  const Comparison comparison = with({}, kBase, kNew);
  CHECK(names(comparison, comparison.order) ==
        std::vector<std::string>{"large", "small", "cpu_only", "same"});
  CHECK(comparison.shown == comparison.order);
}

TEST_CASE("order: --sort picks the first metric", "[diff][order]") {
  CompareOptions options;
  options.sort = Metric::kCpuTotal;
  const Comparison comparison = with(options, kBase, kNew);
  CHECK(names(comparison, comparison.order) ==
        std::vector<std::string>{"cpu_only", "large", "small", "same"});
}

TEST_CASE("order: --limit keeps every failed row", "[diff][order]") {
  CompareOptions options;
  options.limit = 1;
  options.sort = Metric::kCpuTotal;
  options.rules = {*parse_rule("self_cuda:+1").rule};
  const Comparison comparison = with(options, kBase, kNew);
  // cpu_only is first; large and small failed and come after it.
  CHECK(names(comparison, comparison.shown) ==
        std::vector<std::string>{"cpu_only", "large", "small"});
  options.limit = 0;
  CHECK(with(options, kBase, kNew).shown.size() == 4);
}

TEST_CASE("columns: memory only when some row has memory", "[diff][order]") {
  CHECK(shown_metrics(with({}, kBase, kNew)) ==
        std::vector<Metric>{Metric::kCount, Metric::kSelfCuda, Metric::kCudaTotal, Metric::kSelfCpu,
                            Metric::kCpuTotal});
  RunRow malloc_row = cpu_row("api", "cudaMalloc", 1, 10);
  at(malloc_row.values, Metric::kCudaMem) = 4096;
  at(malloc_row.values, Metric::kSelfCudaMem) = 4096;
  const Comparison comparison = with({}, kBase, {run_of({malloc_row})});
  CHECK(shown_metrics(comparison) ==
        std::vector<Metric>{Metric::kCount, Metric::kSelfCuda, Metric::kCudaTotal, Metric::kSelfCpu,
                            Metric::kCpuTotal, Metric::kCudaMem, Metric::kSelfCudaMem});
  CHECK(names(comparison, rows_with_status(comparison, Status::kNew)) ==
        std::vector<std::string>{"cudaMalloc"});
  CHECK(names(comparison, rows_with_status(comparison, Status::kVanished)) ==
        std::vector<std::string>{"large", "same", "small", "cpu_only"});
}

}  // namespace
}  // namespace gprof::comparison
