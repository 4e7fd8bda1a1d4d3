// Pairing NVTX events into ranges (nvtx_ranges.h): nesting per thread and
// domain, start/end across threads, and what does not pair.
#include "tools/analysis/model/nvtx_ranges.h"

#include <catch2/catch.hpp>

#include <vector>

#include "test/unit/formats/sidecar_builder.h"

namespace gprof::analysis {
namespace {

using test::make_range_event;

RangeEvent on(uint32_t tid, RangeEvent e, uint32_t domain = 0) {
  e.tid = tid;
  e.domain = domain;
  return e;
}

RangeEvent push(uint32_t tid, uint64_t t, uint32_t name, uint32_t domain = 0) {
  return on(tid, make_range_event(RangeOp::kPush, t, name), domain);
}
RangeEvent pop(uint32_t tid, uint64_t t, uint32_t domain = 0) {
  return on(tid, make_range_event(RangeOp::kPop, t), domain);
}
RangeEvent start(uint32_t tid, uint64_t t, uint32_t name, uint64_t id) {
  return on(tid, make_range_event(RangeOp::kStart, t, name, id));
}
RangeEvent end(uint32_t tid, uint64_t t, uint64_t id) {
  return on(tid, make_range_event(RangeOp::kEnd, t, 0, id));
}

std::vector<Range> pair(const std::vector<RangeEvent>& events, uint64_t last_ns,
                        RangeCounts& counts) {
  RangePairing pairing;
  for (const RangeEvent& e : events) pairing.add(e);
  return pairing.finish(last_ns, counts);
}

TEST_CASE("ranges: push/pop nest per thread, in the order they opened", "[ranges]") {
  RangeCounts counts;
  // Thread 1: a [10, 100) > b [20, 50); thread 2 interleaved: c [15, 30).
  const auto ranges =
      pair({push(1, 10, 1), push(2, 15, 3), push(1, 20, 2), pop(2, 30), pop(1, 50), pop(1, 100)},
           1000, counts);
  REQUIRE(ranges.size() == 3);
  CHECK(ranges[0].name == 1);
  CHECK(ranges[0].start_ns == 10);
  CHECK(ranges[0].end_ns == 100);
  CHECK(ranges[1].name == 3);
  CHECK(ranges[1].tid == 2);
  CHECK(ranges[1].end_ns == 30);
  CHECK(ranges[2].name == 2);
  CHECK(ranges[2].start_ns == 20);
  CHECK(ranges[2].end_ns == 50);
  CHECK(ranges[2].kind == RangeKind::kPushPop);
  CHECK(counts.push_pop == 3);
  CHECK_FALSE(counts.noteworthy());
}

TEST_CASE("ranges: each domain has its own stack", "[ranges]") {
  RangeCounts counts;
  // Domain 7 pops its own range, not the default domain's inner one.
  const auto ranges =
      pair({push(1, 10, 1, 7), push(1, 20, 2), pop(1, 30, 7), pop(1, 40)}, 1000, counts);
  REQUIRE(ranges.size() == 2);
  CHECK(ranges[0].domain == 7);
  CHECK(ranges[0].end_ns == 30);
  CHECK(ranges[1].end_ns == 40);
  CHECK(counts.unbalanced_pops == 0);
}

TEST_CASE("ranges: an unbalanced pop is counted and ignored", "[ranges]") {
  RangeCounts counts;
  const auto ranges = pair({pop(1, 5), push(1, 10, 1), pop(1, 20), pop(1, 30)}, 1000, counts);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].end_ns == 20);
  CHECK(counts.unbalanced_pops == 2);
  CHECK(counts.noteworthy());
}

TEST_CASE("ranges: open at exit are closed at the last timestamp", "[ranges]") {
  RangeCounts counts;
  const auto ranges =
      pair({push(1, 10, 1), push(1, 20, 2), pop(1, 30), start(2, 40, 3, 99)}, 500, counts);
  REQUIRE(ranges.size() == 3);
  CHECK(ranges[0].end_ns == 500);
  CHECK(ranges[0].open_at_exit);
  CHECK(ranges[1].end_ns == 30);
  CHECK_FALSE(ranges[1].open_at_exit);
  CHECK(ranges[2].kind == RangeKind::kStartEnd);
  CHECK(ranges[2].end_ns == 500);
  CHECK(ranges[2].open_at_exit);
  CHECK(counts.open_at_exit == 2);
  CHECK(counts.push_pop == 2);
  CHECK(counts.start_end == 1);
}

TEST_CASE("ranges: start/end pair by id across threads, in any file order", "[ranges]") {
  RangeCounts counts;
  // The end (thread 2's batch) arrives before the start (thread 1's).
  const auto ranges =
      pair({end(2, 80, 5), start(1, 10, 4, 5), end(3, 60, 6), start(1, 30, 4, 7), end(1, 70, 7)},
           1000, counts);
  REQUIRE(ranges.size() == 2);
  CHECK(ranges[0].start_ns == 10);
  CHECK(ranges[0].end_ns == 80);
  CHECK(ranges[0].tid == 1);
  CHECK(ranges[0].end_tid == 2);
  CHECK(ranges[1].start_ns == 30);
  CHECK(ranges[1].end_ns == 70);
  CHECK(counts.cross_thread == 1);
  CHECK(counts.ends_without_start == 1);  // id 6
  CHECK(counts.start_end == 2);
}

TEST_CASE("ranges: a reused id pairs in time order", "[ranges]") {
  RangeCounts counts;
  const auto ranges =
      pair({start(1, 10, 1, 5), end(1, 20, 5), start(1, 30, 1, 5), end(1, 45, 5), end(1, 50, 5)},
           1000, counts);
  REQUIRE(ranges.size() == 2);
  CHECK(ranges[0].end_ns == 20);
  CHECK(ranges[1].start_ns == 30);
  CHECK(ranges[1].end_ns == 45);
  CHECK(counts.ends_without_start == 1);
}

TEST_CASE("ranges: marks, thread names, categories", "[ranges]") {
  RangeCounts counts;
  RangePairing pairing;
  pairing.add(on(1, make_range_event(RangeOp::kMark, 15, 9)));
  pairing.add(on(1, make_range_event(RangeOp::kNameThread, 16, 8, 4242)));
  pairing.add(on(1, make_range_event(RangeOp::kNameCategory, 17, 7, 3)));
  const auto ranges = pairing.finish(100, counts);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].kind == RangeKind::kMark);
  CHECK(ranges[0].start_ns == 15);
  CHECK(ranges[0].end_ns == 15);
  CHECK(counts.marks == 1);
  REQUIRE(pairing.thread_names().count(4242) == 1);
  CHECK(pairing.thread_names().at(4242) == 8);
}

TEST_CASE("ranges: a pop before its push in time is zero length", "[ranges]") {
  RangeCounts counts;
  const auto ranges = pair({push(1, 50, 1), pop(1, 40)}, 100, counts);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].start_ns == 50);
  CHECK(ranges[0].end_ns == 50);
}

TEST_CASE("ranges: torch seq and op_id come from the push, start or mark", "[ranges]") {
  const auto with = [](RangeEvent e, uint64_t seq, uint64_t op_id) {
    e.seq = seq;
    e.op_id = op_id;
    return e;
  };
  RangeCounts counts;
  // The pop and the end carry other numbers: the opening event's win.
  const auto ranges = pair(
      {
          with(push(1, 10, 1), 13, 34), with(push(1, 20, 2), 0, 35), with(pop(1, 30), 99, 99),
          with(pop(1, 40), 98, 98), with(start(1, 50, 3, 7), 1, 0), with(end(2, 60, 7), 97, 97),
          with(on(1, make_range_event(RangeOp::kMark, 70, 4)), 0, 36),
          push(1, 80, 5),  // open at exit
      },
      1000, counts);
  REQUIRE(ranges.size() == 5);
  CHECK(ranges[0].seq == 13);
  CHECK(ranges[0].op_id == 34);
  CHECK(ranges[1].seq == 0);
  CHECK(ranges[1].op_id == 35);
  CHECK(ranges[2].kind == RangeKind::kStartEnd);
  CHECK(ranges[2].seq == 1);
  CHECK(ranges[2].op_id == 0);
  CHECK(ranges[3].kind == RangeKind::kMark);
  CHECK(ranges[3].seq == 0);
  CHECK(ranges[3].op_id == 36);
  CHECK(ranges[4].open_at_exit);
  CHECK(ranges[4].seq == 0);
  CHECK(ranges[4].op_id == 0);
}

}  // namespace
}  // namespace gprof::analysis
