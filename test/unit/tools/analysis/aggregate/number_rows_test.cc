// The window over labels grouped by a number: the older half leaves past
// the window, with what it summed and its place; what reaches a label that
// left is joined with it when the file ends; a label asked for again gets a
// new id.
#include "tools/analysis/aggregate/number_rows.h"

#include <catch2/catch.hpp>

#include <map>
#include <string>

namespace gprof::analysis {
namespace {

CpuNode node(uint32_t thread, uint64_t start_ns, uint32_t id) {
  CpuNode n;
  n.thread = thread;
  n.start_ns = start_ns;
  n.end_ns = start_ns + 10;
  n.id = id;
  n.flags = kNodeRange;
  return n;
}

RowLabel op(Interner& strings, uint64_t seq) {
  return RowLabel{RowKind::kRange, strings.id("aten::mm"),
                  kNumberGroup | static_cast<uint32_t>(seq)};
}

TEST_CASE("number rows: labels past the window leave and come back joined", "[number_rows]") {
  Interner strings;
  NumberRows rows(strings, 3, 4, {});
  std::vector<uint32_t> ids;
  for (uint64_t seq = 0; seq < 10; ++seq) {
    const uint32_t l = rows.label(op(strings, seq));
    CHECK(NumberRows::holds(l));
    CHECK(rows.label(op(strings, seq)) == l);  // asked again while held: the same
    rows.walked(l, node(1, 100 * seq, static_cast<uint32_t>(seq)));
    rows.values(l).count += 1;
    rows.values(l).self_cpu_ns += seq;
    ids.push_back(l);
  }
  CHECK(rows.evicted());
  // Labels 0..7 left (two evictions of half of four, then of four again):
  // what reaches them now is joined at the end.
  rows.values(ids[0]).device_total_ns += 7;
  rows.values(ids[1]).device_total_ns += 5;
  rows.values(ids[0]).device_total_ns += 1;  // the same scratch again
  // A walk on another thread that started earlier: the row's place moves there.
  rows.walked(ids[2], node(0, 5, 99));
  rows.values(ids[2]).count += 1;
  // Asked for again after it left: a new id, its own row until merged by key.
  const uint32_t again = rows.label(op(strings, 3));
  CHECK(again != ids[3]);

  const std::vector<uint32_t> held = rows.walked_labels();
  RowRuns<ByKey> left = rows.finish();
  std::map<std::string, std::vector<PlacedRow>> by_group;
  auto cursor = left.sorted();
  for (PlacedRow p; cursor.next(p);) by_group[p.row.group].push_back(p);
  // Whatever left: the labels evicted, and two late parts (0, 1 share one
  // label each with their row; 2's late part).
  for (uint64_t seq = 0; seq < 8; ++seq) {
    INFO("seq " << seq);
    REQUIRE(by_group.count(std::to_string(seq)) == 1);
    uint64_t count = 0;
    uint64_t device = 0;
    RowPlace first{~0ull, ~0ull, ~0ull, ~0ull};
    for (const PlacedRow& p : by_group[std::to_string(seq)]) {
      CHECK(p.row.name == "aten::mm");
      CHECK(p.row.kind == RowKind::kRange);
      count += p.row.count;
      device += p.row.device_total_ns;
      first = std::min(first, p.place);
    }
    CHECK(count == (seq == 2 ? 2u : 1u));
    CHECK(device == (seq == 0 ? 8u : seq == 1 ? 5u : 0u));
    const CpuNode expected =
        seq == 2 ? node(0, 5, 99) : node(1, 100 * seq, static_cast<uint32_t>(seq));
    CHECK(first == FirstEvent::of(expected).place(3));
  }
  // Those still held are the caller's (walked_labels); the new one for
  // seq 3 was never walked.
  CHECK(held.size() == 2);
  CHECK(by_group.count("8") == 0);
}

TEST_CASE("number rows: a label open when it leaves keeps its id for the same op nested",
          "[number_rows]") {
  Interner strings;
  std::vector<uint32_t> open;  // what the caller's range stacks hold
  NumberRows rows(strings, 0, 4, [&](std::vector<uint32_t>& ids) { ids = open; });
  const uint32_t outer = rows.label(op(strings, 100));
  open.push_back(outer);
  const uint32_t closed = rows.label(op(strings, 101));
  for (uint64_t seq = 0; seq < 6; ++seq) rows.label(op(strings, seq));  // both leave
  // The same op nested in the open one: its id, so the walk counts totals once.
  CHECK(rows.label(op(strings, 100)) == outer);
  // One that was not open when it left: a new id (its rows merge by key).
  CHECK(rows.label(op(strings, 101)) != closed);
  // Once closed, the next eviction forgets it.
  open.clear();
  for (uint64_t seq = 10; seq < 16; ++seq) rows.label(op(strings, seq));
  CHECK(rows.label(op(strings, 100)) != outer);
}

}  // namespace
}  // namespace gprof::analysis
