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

namespace gprof::analysis {
namespace {

// Files' rows merged in file order, with and without spilling: the same rows
// in the same order with the same sums.
std::vector<Row> three_files(size_t spill_above) {
  KeyAverages all;
  all.spill_above(spill_above);
  for (uint32_t file = 0; file < 3; ++file) {
    KeyAverages rows(file);
    rows.spill_above(spill_above);
    for (int i = 0; i < 40; ++i) {
      // Keys come back after they were spilled; file 1 has keys of its own.
      const int op = (i * 7 + static_cast<int>(file)) % (file == 1 ? 25 : 15);
      const auto key = rows.key("op" + std::to_string(op), RowKind::kRange, std::to_string(op % 4));
      rows.row(key).count += 1;
      rows.row(key).self_cpu_ns += static_cast<uint64_t>(i + 1) * (file + 1);
      rows.row(key).self_device_mem -= i;
    }
    const auto kernel = rows.key("k", RowKind::kGpu);
    rows.row(kernel).gpu_kind = file == 2 ? GpuKind::kMemcpy : GpuKind::kKernel;
    rows.add_gpu_activity(kernel, 100 * (file + 1));
    rows.key("never counted", RowKind::kApi);
    all.merge(std::move(rows));
  }
  CHECK(all.spilled() == (spill_above != 0));
  return all.finish();
}

TEST_CASE("key averages: rows spilled past a bound come back as if held", "[key_averages]") {
  const std::vector<Row> held = three_files(0);
  REQUIRE(held.size() == 26);  // 25 ops and the kernel
  for (size_t bound : {1, 2, 5, 12}) {
    INFO("spill above " << bound);
    const std::vector<Row> spilled = three_files(bound);
    REQUIRE(spilled.size() == held.size());
    for (size_t i = 0; i < held.size(); ++i) {
      INFO("row " << i << " " << held[i].name);
      CHECK(spilled[i].name == held[i].name);
      CHECK(spilled[i].group == held[i].group);
      CHECK(spilled[i].count == held[i].count);
      CHECK(spilled[i].self_cpu_ns == held[i].self_cpu_ns);
      CHECK(spilled[i].self_device_mem == held[i].self_device_mem);
      CHECK(spilled[i].device_total_ns == held[i].device_total_ns);
      CHECK(spilled[i].gpu_kind == held[i].gpu_kind);
    }
  }
  // The kernel's place is file 0's, after its ops; the last file's word on
  // its kind stands.
  REQUIRE(held[15].name == "k");
  CHECK(held[15].gpu_kind == GpuKind::kMemcpy);
  CHECK(held[15].device_total_ns == 600);
}

TEST_CASE("key averages: a spill changes the generation of keys", "[key_averages]") {
  KeyAverages rows;
  rows.spill_above(2);
  rows.key("a", RowKind::kApi);
  rows.key("b", RowKind::kApi);
  const uint32_t before = rows.generation();
  CHECK_FALSE(rows.spilled());
  rows.key("a", RowKind::kApi);  // held: no spill
  CHECK(rows.generation() == before);
  rows.key("c", RowKind::kApi);
  CHECK(rows.spilled());
  CHECK(rows.generation() != before);
}

}  // namespace
}  // namespace gprof::analysis
