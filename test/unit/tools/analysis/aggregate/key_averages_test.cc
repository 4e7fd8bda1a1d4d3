// The row store: keys by kind, name and group; GPU activities; which rows
// come out.
#include "tools/analysis/aggregate/key_averages.h"

#include <catch2/catch.hpp>

namespace gprof::analysis {
namespace {

TEST_CASE("key averages: a key is kind, name and group", "[key_averages]") {
  KeyAverages averages;
  const auto api = averages.key("cudaMalloc", RowKind::kApi);
  CHECK(averages.key("cudaMalloc", RowKind::kApi) == api);
  CHECK(averages.key("cudaMalloc", RowKind::kApi, "") == api);
  const auto range = averages.key("cudaMalloc", RowKind::kRange);
  const auto stream7 = averages.key("cudaMalloc", RowKind::kApi, "7");
  CHECK(range != api);
  CHECK(stream7 != api);
  CHECK(averages.row_count() == 3);
  averages.row(api).count = 2;
  averages.row(stream7).count = 1;
  const auto rows = averages.finish();
  // The range row had no call: out of scope, no row.
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].name == "cudaMalloc");
  CHECK(rows[0].group.empty());
  CHECK(rows[0].count == 2);
  CHECK(rows[1].group == "7");
  CHECK(averages.row_count() == 0);
}

TEST_CASE("key averages: GPU activities count calls and GPU time only", "[key_averages]") {
  KeyAverages averages;
  const auto kernel = averages.key("square(float*, int)", RowKind::kGpu);
  averages.add_gpu_activity(kernel, 300);
  averages.add_gpu_activity(kernel, 0);
  const auto rows = averages.finish();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].kind == RowKind::kGpu);
  CHECK(rows[0].count == 2);
  CHECK(rows[0].self_device_ns == 300);
  CHECK(rows[0].device_total_ns == 300);
  CHECK(rows[0].device_avg_ns() == 150);
  CHECK(rows[0].self_cpu_ns == 0);
  CHECK(rows[0].cpu_avg_ns() == 0);
}

}  // namespace
}  // namespace gprof::analysis
