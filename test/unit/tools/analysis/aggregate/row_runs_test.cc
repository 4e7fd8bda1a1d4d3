// The external sort of key-averages rows: runs written past the budget
// and merged back in order, names and numbers whole, files shared by
// absorbed sorters.
#include "tools/analysis/aggregate/row_runs.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace gprof::analysis {
namespace {

struct ByPlace {
  bool operator()(const PlacedRow& a, const PlacedRow& b) const { return a.place < b.place; }
};

PlacedRow placed(uint64_t place, std::string name, std::string group = {}) {
  PlacedRow p;
  p.place = RowPlace{0, place, 0, 0};
  p.row.name = std::move(name);
  p.row.group = std::move(group);
  p.row.kind = RowKind::kGpu;
  p.row.gpu_kind = GpuKind::kMemset;
  p.row.count = place * 3;
  p.row.self_cpu_mem = -static_cast<int64_t>(place);
  return p;
}

std::vector<PlacedRow> drain(RowRuns<ByPlace>& runs) {
  std::vector<PlacedRow> out;
  auto cursor = runs.sorted();
  for (PlacedRow p; cursor.next(p);) out.push_back(p);
  return out;
}

TEST_CASE("row runs: rows past the budget are written and merged back in order", "[row_runs]") {
  // A budget of about two rows: a run every two or three rows.
  RowRuns<ByPlace> runs(2 * sizeof(PlacedRow));
  const std::string long_name(5000, 'k');  // longer than a run reader's first read
  std::vector<uint64_t> places = {17, 3, 99, 4, 50, 1, 8, 23, 42, 5, 6, 77};
  for (uint64_t p : places)
    runs.add(placed(p, p == 42 ? long_name : "op" + std::to_string(p),
                    p % 2 == 0 ? std::to_string(p * 11) : ""));
  CHECK(runs.runs() >= 4);
  const std::vector<PlacedRow> out = drain(runs);
  REQUIRE(out.size() == places.size());
  std::sort(places.begin(), places.end());
  for (size_t i = 0; i < out.size(); ++i) {
    const uint64_t p = places[i];
    INFO("row " << i);
    CHECK(out[i].place.a == p);
    CHECK(out[i].row.name == (p == 42 ? long_name : "op" + std::to_string(p)));
    CHECK(out[i].row.group == (p % 2 == 0 ? std::to_string(p * 11) : ""));
    CHECK(out[i].row.kind == RowKind::kGpu);
    CHECK(out[i].row.gpu_kind == GpuKind::kMemset);
    CHECK(out[i].row.count == p * 3);
    CHECK(out[i].row.self_cpu_mem == -static_cast<int64_t>(p));
  }
  CHECK(runs.empty());
}

TEST_CASE("row runs: nothing spilled is sorted in memory", "[row_runs]") {
  RowRuns<ByPlace> runs;
  for (uint64_t p : {5, 2, 9}) runs.add(placed(p, "x"));
  CHECK(runs.runs() == 0);
  const std::vector<PlacedRow> out = drain(runs);
  REQUIRE(out.size() == 3);
  CHECK(out[0].place.a == 2);
  CHECK(out[2].place.a == 9);
}

TEST_CASE("row runs: an absorbed sorter's runs and rows merge with one's own", "[row_runs]") {
  RowRuns<ByPlace> a(sizeof(PlacedRow));
  RowRuns<ByPlace> b(sizeof(PlacedRow));
  for (uint64_t p : {10, 30, 50}) a.add(placed(p, "a"));
  for (uint64_t p : {20, 40, 60, 5}) b.add(placed(p, "b"));
  a.absorb(std::move(b));
  CHECK(b.empty());
  std::vector<uint64_t> got;
  for (const PlacedRow& p : drain(a)) got.push_back(p.place.a);
  CHECK(got == std::vector<uint64_t>{5, 10, 20, 30, 40, 50, 60});
}

}  // namespace
}  // namespace gprof::analysis
