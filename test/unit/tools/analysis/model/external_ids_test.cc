// A streamed file's external correlations (external_ids.h): a GPU record
// pairs through its mapping, else by its own id; what the table pushed out
// is told, not guessed; records that came before their mapping move to the
// pushed id (CallSlots::rename).
#include "tools/analysis/model/external_ids.h"

#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "formats/correlation_ids.h"
#include "tools/analysis/model/call_slots.h"

namespace gprof::analysis {
namespace {

constexpr uint64_t P = kPushedIdBase;

TEST_CASE("a GPU record pairs through its mapping, else by its own id") {
  ExternalIds ids(4);
  bool lost = true;
  CHECK(ids.translate(5, lost) == 5);  // no mapping at all
  CHECK(!lost);
  REQUIRE(ids.add(6, P + 1) == ExternalIds::Added::kNew);
  CHECK(ids.translate(6, lost) == P + 1);
  CHECK(!lost);
  CHECK(ids.translate(5, lost) == 5);  // a call from before the takeover
  CHECK(!lost);
  CHECK(ids.translate(0, lost) == 0);
  CHECK(ids.add(6, P + 1) == ExternalIds::Added::kAgain);
  CHECK(ids.add(6, P + 2) == ExternalIds::Added::kConflict);
}

TEST_CASE("a mapping pushed out of the table is lost, not read as the record's own id") {
  ExternalIds ids(4);  // 16 slots
  REQUIRE(ids.add(3, P + 3) == ExternalIds::Added::kNew);
  REQUIRE(ids.add(3 + 16, P + 19) == ExternalIds::Added::kNew);  // takes 3's slot
  bool lost = false;
  CHECK(ids.translate(3 + 16, lost) == P + 19);
  CHECK(!lost);
  ids.translate(3, lost);
  CHECK(lost);
  CHECK(ids.add(3, P + 3) == ExternalIds::Added::kConflict);
}

TEST_CASE("records whose mapping was pushed out find it on disk once the file has ended") {
  ExternalIds ids(2);  // 4 slots: ids 1..40 push out all but the last four
  for (uint64_t cupti = 1; cupti <= 40; ++cupti)
    REQUIRE(ids.add(cupti, P + 100 + cupti) == ExternalIds::Added::kNew);
  struct Lost {
    uint64_t cupti;
    uint64_t seq;
  };
  struct ByCupti {
    bool operator()(const Lost& a, const Lost& b) const { return a.cupti < b.cupti; }
  };
  SpillSorter<Lost, ByCupti> lost(3);  // spills: runs merged
  uint64_t seq = 0;
  for (const uint64_t cupti : {30u, 2u, 17u, 2u, 36u}) {
    bool is_lost = false;
    ids.translate(cupti, is_lost);
    REQUIRE(is_lost);
    lost.add(Lost{cupti, seq++});
  }
  std::vector<std::pair<uint64_t, uint64_t>> found;  // (seq, pushed)
  ids.join_lost(
      lost, [](const Lost& l) { return l.cupti; },
      [&](const Lost& l, uint64_t pushed) { found.emplace_back(l.seq, pushed); });
  CHECK(found == std::vector<std::pair<uint64_t, uint64_t>>{
                     {1, P + 102}, {3, P + 102}, {2, P + 117}, {0, P + 130}, {4, P + 136}});
}

TEST_CASE("ids pushed from 1 (an older gprof's) are told") {
  ExternalIds old;
  CHECK(old.add(7, 1) == ExternalIds::Added::kSmallIds);
}

TEST_CASE("GPU records read before their mapping move to the call that pushed the id") {
  CallSlots slots(4, 8);
  uint32_t context = 0;
  // The kernel of CUPTI id 9 comes first: no call of id 9, it waits.
  CHECK(slots.gpu(9, 100, context) == CallSlots::Gpu::kWaiting);
  REQUIRE(slots.add_call(P + 1, CallSlots::Expect::kOne));
  uint64_t ns = 0;
  REQUIRE(slots.opened(P + 1, 42, ns));
  CallSlots::Gpu outcome{};
  uint64_t records = 0;
  uint32_t tag = 0;
  REQUIRE(slots.rename(9, P + 1, outcome, records, ns, context, tag));
  CHECK(outcome == CallSlots::Gpu::kOpened);
  CHECK(records == 1);
  CHECK(ns == 100);
  CHECK(context == 42);
  CHECK(slots.unpaired() == 0);
  CHECK(slots.received(P + 1) == 1);
  // No record waited under 10: nothing moves.
  REQUIRE(slots.rename(10, P + 2, outcome, records, ns, context, tag));
  CHECK(records == 0);
}

TEST_CASE("a record moved to a call not read yet waits under the pushed id") {
  CallSlots slots(4, 8);
  uint32_t context = 0;
  CHECK(slots.gpu(9, 100, context) == CallSlots::Gpu::kWaiting);
  CallSlots::Gpu outcome{};
  uint64_t records = 0, ns = 0;
  uint32_t tag = 0;
  REQUIRE(slots.rename(9, P + 1, outcome, records, ns, context, tag));
  CHECK(outcome == CallSlots::Gpu::kWaiting);
  CHECK(slots.unpaired() == 1);
  REQUIRE(slots.add_call(P + 1, CallSlots::Expect::kOne));
  CHECK(slots.unpaired() == 0);
  REQUIRE(slots.opened(P + 1, 7, ns));
  CHECK(ns == 100);
}

}  // namespace
}  // namespace gprof::analysis
