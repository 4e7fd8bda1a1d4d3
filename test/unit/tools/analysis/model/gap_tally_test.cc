// CUPTI gaps counted as a file streams (gap_tally.h): the counts profile.cc
// takes from the whole file, whatever the order in which the gap, the GPU
// records and the launches are read.
#include "tools/analysis/model/gap_tally.h"

#include <catch2/catch.hpp>
#include <set>

namespace gprof::analysis {
namespace {

struct Owner {
  std::set<uint64_t> received;
  std::set<uint64_t> forgotten;
  static int answer(void* self, uint64_t id) {
    const Owner& o = *static_cast<Owner*>(self);
    if (o.forgotten.contains(id)) return -1;
    return o.received.contains(id) ? 1 : 0;
  }
};

pb::CuptiStatus with_gaps(std::initializer_list<std::pair<uint64_t, uint64_t>> gaps) {
  pb::CuptiStatus status;
  for (const auto& [start, end] : gaps) {
    pb::CuptiGap* gap = status.add_gaps();
    gap->set_start_ns(start);
    gap->set_end_ns(end);
  }
  return status;
}

bool same(const GapCounts& a, const GapCounts& b) {
  return a.gpu_before == b.gpu_before && a.gpu_during == b.gpu_during &&
         a.gpu_after == b.gpu_after && a.launches == b.launches &&
         a.launches_without_gpu == b.launches_without_gpu;
}

TEST_CASE("records and launches read before the gap was are counted from the ring") {
  Owner owner;
  GapTally tally(&Owner::answer, &owner);
  tally.gpu(10);
  tally.gpu(120);  // in flight: started after the gap's start, read before it
  tally.launch(110, 1);
  owner.received.insert(1);  // its kernel came already
  tally.launch(130, 2);
  tally.launch(50, 3);  // before the gap: not counted
  REQUIRE(tally.status(with_gaps({{100, 0}})));
  tally.gpu(90);   // before
  tally.gpu(150);  // waits for the end
  tally.launch(160, 4);
  tally.launch(300, 5);  // after the end, once known
  REQUIRE(tally.status(with_gaps({{100, 200}})));
  tally.gpu(250);
  tally.launch(190, 6);
  tally.worked(6);
  REQUIRE(tally.finish(with_gaps({{100, 200}})));
  const auto counts = tally.counts();
  REQUIRE(counts.size() == 1);
  // GPU starts 10, 90 before; 120, 150 during; 250 after. Launches 110, 130, 160, 190 inside:
  // 1 and 6 got work.
  CHECK(same(counts[0], GapCounts{2, 2, 1, 4, 2}));
}

TEST_CASE("a gap still open when the file ends lasts to the end") {
  Owner owner;
  GapTally tally(&Owner::answer, &owner);
  tally.gpu(10);
  REQUIRE(tally.status(with_gaps({{100, 0}})));
  tally.gpu(5000);
  tally.launch(4000, 9);
  REQUIRE(tally.finish(with_gaps({{100, 0}})));
  CHECK(same(tally.counts()[0], GapCounts{1, 1, 0, 1, 1}));
}

TEST_CASE("launches counted in an open gap that turn out to be after its end are taken back") {
  Owner owner;
  GapTally tally(&Owner::answer, &owner);
  REQUIRE(tally.status(with_gaps({{100, 0}})));
  tally.launch(150, 1);  // inside
  tally.launch(250, 2);  // after the end, which is not known yet
  tally.worked(2);       // its work came
  tally.launch(260, 3);  // after it too, no work yet
  owner.received.insert(4);
  tally.launch(270, 4);  // after it, its work came before it
  REQUIRE(tally.status(with_gaps({{100, 200}})));
  tally.worked(3);  // no longer the gap's
  tally.worked(1);
  tally.worked(1);  // a second record of one launch
  REQUIRE(tally.finish(with_gaps({{100, 200}})));
  CHECK(same(tally.counts()[0], GapCounts{0, 0, 0, 1, 0}));
}

TEST_CASE("two launches of one id: the one work pairs with is the only one with work") {
  Owner owner;
  GapTally tally(&Owner::answer, &owner);
  REQUIRE(tally.status(with_gaps({{100, 200}})));
  tally.launch(150, 5);
  tally.launch(160, 5);
  tally.launch(170, 0);  // id 0 never pairs
  tally.worked(5);
  REQUIRE(tally.finish(with_gaps({{100, 200}})));
  CHECK(same(tally.counts()[0], GapCounts{0, 0, 0, 3, 2}));
}

TEST_CASE("a second gap after a first whose in-flight records were in the ring") {
  // Found in review: the records taken from the ring were not counted as waiting, and the
  // first gap's end took them off a count that then wrapped below zero: every record of a
  // later open gap was "too many".
  Owner owner;
  GapTally tally(&Owner::answer, &owner);
  tally.gpu(120);
  REQUIRE(tally.status(with_gaps({{100, 0}})));
  REQUIRE(tally.status(with_gaps({{100, 200}})));
  REQUIRE(tally.status(with_gaps({{100, 200}, {300, 0}})));
  tally.gpu(350);
  CHECK(tally.why().empty());
  REQUIRE(tally.finish(with_gaps({{100, 200}, {300, 400}})));
  const auto counts = tally.counts();
  CHECK(same(counts[0], GapCounts{0, 1, 1, 0, 0}));
  CHECK(same(counts[1], GapCounts{1, 1, 0, 0, 0}));
}

TEST_CASE("two gaps each count every record") {
  Owner owner;
  GapTally tally(&Owner::answer, &owner);
  for (uint64_t t : {10, 150, 250, 350}) tally.gpu(t);
  REQUIRE(tally.status(with_gaps({{100, 200}, {300, 400}})));
  tally.launch(320, 1);
  REQUIRE(tally.finish(with_gaps({{100, 200}, {300, 400}})));
  const auto counts = tally.counts();
  REQUIRE(counts.size() == 2);
  CHECK(same(counts[0], GapCounts{1, 1, 2, 0, 0}));
  CHECK(same(counts[1], GapCounts{3, 1, 0, 1, 1}));
}

TEST_CASE("what cannot be counted exactly is told") {
  SECTION("a record pushed out of the ring started after the gap") {
    Owner owner;
    GapTally tally(&Owner::answer, &owner);
    tally.gpu(500);
    for (int i = 0; i < (1 << 16); ++i) tally.gpu(1);
    CHECK(!tally.status(with_gaps({{100, 0}})));
    CHECK(!tally.why().empty());
  }
  SECTION("a launch inside the gap whose call the pairing no longer knows") {
    Owner owner;
    owner.forgotten.insert(7);
    GapTally tally(&Owner::answer, &owner);
    tally.launch(150, 7);
    CHECK(!tally.status(with_gaps({{100, 0}})));
  }
  SECTION("a gap the last status no longer lists") {
    Owner owner;
    GapTally tally(&Owner::answer, &owner);
    REQUIRE(tally.status(with_gaps({{100, 0}})));
    CHECK(!tally.finish(pb::CuptiStatus{}));
  }
}

}  // namespace
}  // namespace gprof::analysis
