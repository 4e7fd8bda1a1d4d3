// The rows of a run read from sidecar files: those of `gpuprof report`,
// with --group-by and --range.
#include <catch2/catch.hpp>

#include <string>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/training_fixture.h"
#include "tools/comparison/runs/sidecar_run.h"

namespace gprof::comparison {
namespace {

const RunRow* find(const RunRows& run, const std::string& kind, const std::string& name) {
  for (const RunRow& row : run.rows)
    if (row.key.kind == kind && row.key.name == name) return &row;
  return nullptr;
}

TEST_CASE("sidecar run: rows and totals of the training capture", "[diff][sidecar]") {
  const std::string path = test::write_training_capture("diff_training.gprof");
  const SidecarRun run = load_sidecar_run({path}, RowOptions{});
  REQUIRE(run.files.size() == 1);
  CHECK(run.files[0].status.opened);
  const RunRow* square = find(run.rows, "kernel", "square(float*, int)");
  REQUIRE(square);
  CHECK(at(square->values, Metric::kCount) == 3);
  CHECK(at(square->values, Metric::kSelfCuda) == 12000);
  const RunRow* launches = find(run.rows, "api", "cudaLaunchKernel");
  REQUIRE(launches);
  CHECK(at(launches->values, Metric::kCount) == 5);
  CHECK(at(launches->values, Metric::kSelfCpu) == 2500);
  CHECK(find(run.rows, "range", "aten::mm"));
  CHECK(find(run.rows, "memory", "[memory]"));
  // The footer of `gpuprof report` on this file: 57 us CPU, 20 us CUDA.
  CHECK(at(run.rows.totals, TotalMetric::kSelfCpu) == 57000);
  CHECK(at(run.rows.totals, TotalMetric::kSelfCuda) == 20000);
  CHECK(at(run.rows.totals, TotalMetric::kKernels) == 5);
  CHECK(at(run.rows.totals, TotalMetric::kCopies) == 4);
  CHECK(at(run.rows.totals, TotalMetric::kSets) == 0);
  CHECK(at(run.rows.totals, TotalMetric::kApiCalls) == 15);
}

TEST_CASE("sidecar run: --group-by and --range", "[diff][sidecar]") {
  const std::string path = test::write_training_capture("diff_training_scoped.gprof");
  const SidecarRun by_stream = load_sidecar_run({path}, RowOptions{analysis::GroupBy::kStream, {}});
  const RunRow* square = find(by_stream.rows, "kernel", "square(float*, int)");
  REQUIRE(square);
  CHECK_FALSE(square->key.group.empty());

  const SidecarRun backward =
      load_sidecar_run({path}, RowOptions{analysis::GroupBy::kName, {"backward"}});
  CHECK(find(backward.rows, "kernel", "vector_add"));
  CHECK_FALSE(find(backward.rows, "kernel", "square(float*, int)"));
  CHECK(at(backward.rows.totals, TotalMetric::kKernels) == 2);
}

TEST_CASE("sidecar run: a file that cannot be read says so", "[diff][sidecar]") {
  const std::string path = test::write_temp_file("diff_garbage.gprof", "not a sidecar file");
  const SidecarRun run = load_sidecar_run({path}, RowOptions{});
  REQUIRE(run.files.size() == 1);
  CHECK_FALSE(run.files[0].status.opened);
  CHECK(run.rows.rows.empty());
}

}  // namespace
}  // namespace gprof::comparison
