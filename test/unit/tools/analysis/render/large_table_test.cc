// A table read from spilled rows, and one held in memory, print what the
// same rows print from a vector: every sort, with and without a limit, in
// each view.
#include "tools/analysis/render/large_table.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tools/analysis/render/table_csv.h"

namespace gprof::analysis {
namespace {

// Rows with ties in every column, GPU rows, a [memory] row, one without calls.
KeyAverages make_rows(size_t spill_above) {
  KeyAverages rows;
  rows.spill_above(spill_above);
  for (int i = 0; i < 60; ++i) {
    const auto key = rows.key("op" + std::to_string(i % 23), RowKind::kRange,
                              i % 5 == 0 ? "" : std::to_string(i % 3));
    Row& r = rows.row(key);
    r.count += 1;
    r.self_cpu_ns += static_cast<uint64_t>((i % 4) * 10);
    r.cpu_total_ns += static_cast<uint64_t>((i % 4) * 10 + (i % 2) * 5);
    r.device_total_ns += static_cast<uint64_t>(i % 3);
    r.self_device_mem += i % 6 == 0 ? 8 : 0;
  }
  for (int i = 0; i < 9; ++i)
    rows.add_gpu_activity(rows.key("kernel" + std::to_string(i % 4), RowKind::kGpu), 7 * (i % 2));
  rows.row(rows.key("[memory]", RowKind::kMemory)).count = 2;
  rows.key("no calls", RowKind::kApi);
  return rows;
}

TEST_CASE("large table: the rows a vector of them prints", "[large_table]") {
  for (const std::optional<SortKey> sort :
       {std::optional(SortKey::kCpuTotal), std::optional(SortKey::kName),
        std::optional(SortKey::kSelfDevice), std::optional(SortKey::kCount),
        std::optional<SortKey>()})
    for (const size_t limit : {0, 1, 7, 100})
      for (const View view : {View::kOps, View::kKernels})
        for (const bool default_sort : {false, true}) {
          INFO("sort " << (sort ? sort_key_name(*sort) : "none") << " limit " << limit << " view "
                       << static_cast<int>(view) << " then by CUDA total " << default_sort);
          TableOptions options;
          options.sort = sort;
          options.row_limit = limit;
          options.profile_memory = true;
          options.group_title = "Seq";
          const std::optional<SortKey> then_by =
              default_sort ? std::optional(SortKey::kDeviceTotal) : std::nullopt;

          KeyAverages held = make_rows(0);
          std::vector<Row> rows = held.finish();
          options.totals = table_totals(rows);
          std::erase_if(rows, [&](const Row& r) { return !row_in_view(r, view); });
          if (then_by) sort_rows(rows, *then_by);
          const std::string expected = render_csv_table(rows, options);

          for (const size_t spill_above : {0, 3}) {
            INFO("spilled past " << spill_above);
            KeyAverages read = make_rows(spill_above);
            REQUIRE(read.spilled() == (spill_above != 0));
            LargeTable large = read_table(read, options, {view, false, then_by});
            CHECK(large.any_rows);
            CHECK(large.memory_row == (view == View::kOps));
            CHECK(large.any_group == (view == View::kOps));
            CHECK(large.moved_memory == (view == View::kOps));
            CHECK(large.summary.rows == rows.size());
            CHECK(large.summary.totals.self_cpu_ns == options.totals->self_cpu_ns);
            CHECK(large.summary.totals.self_device_ns == options.totals->self_device_ns);
            const std::string got = collect_text([&](const TextSink& write) {
              write_csv_table(large.summary, large.rows, options, write);
            });
            CHECK(got == expected);
          }
        }
}

TEST_CASE("large table: top-level totals are the CPU totals of the CPU rows", "[large_table]") {
  // Counted here: the CPU totals of the rows that are no GPU activity.
  TableTotals expected;
  for (const Row& row : make_rows(0).finish())
    if (row.kind != RowKind::kGpu) expected.self_cpu_ns += static_cast<double>(row.cpu_total_ns);
  expected.self_device_ns = table_totals(make_rows(0).finish()).self_device_ns;
  CHECK(expected.self_cpu_ns > table_totals(make_rows(0).finish()).self_cpu_ns);
  for (const size_t spill_above : {0, 2}) {
    INFO("spilled past " << spill_above);
    KeyAverages read = make_rows(spill_above);
    TableOptions options;
    options.sort = SortKey::kCpuTotal;
    LargeTable large = read_table(read, options, {View::kOps, true, std::nullopt});
    CHECK(large.summary.totals.self_cpu_ns == expected.self_cpu_ns);
    CHECK(large.summary.totals.self_device_ns == expected.self_device_ns);
  }
}

}  // namespace
}  // namespace gprof::analysis
