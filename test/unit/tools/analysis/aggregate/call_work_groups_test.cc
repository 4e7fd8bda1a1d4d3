// The groups of --group-by stream|device's first pass (call_work_groups.h):
// found at once, or joined from a pushed call and its first late work, read
// back in call order, past the in-memory budget too.
#include "tools/analysis/aggregate/call_work_groups.h"

#include <catch2/catch.hpp>

#include <stdexcept>

namespace gprof::analysis {
namespace {

TEST_CASE("found groups and pushed calls' first late work are read in call order") {
  CallWorkGroups groups;
  groups.found(7, 13);
  groups.pushed(1000, 3);  // id 1000 is call 3
  groups.found(2, 7);
  groups.pushed(900, 5);          // no work ever comes: no group
  CHECK(groups.late(1000, 9));    // its first late work: stream 9
  CHECK(!groups.late(1000, 11));  // later work keeps the first's group
  CHECK(!groups.late(1001, 9));   // not kept by pushed()
  groups.finish();
  CHECK(groups.group(0) == std::nullopt);
  CHECK(groups.group(2) == 7);
  CHECK(groups.group(3) == 9);
  CHECK(groups.group(5) == std::nullopt);
  CHECK(groups.group(7) == 13);
  CHECK(groups.group(8) == std::nullopt);
}

TEST_CASE("groups past the in-memory budget spill and come back in call order") {
  CallWorkGroups groups;
  constexpr uint64_t kCalls = 1'500'000;  // 24 MB of groups: several runs on disk
  // Pushed in an order other than the calls': ids descend as calls ascend.
  for (uint64_t call = 0; call < kCalls; ++call) {
    if (call % 3 == 0)
      groups.pushed(10 * kCalls - call, call);
    else
      groups.found(call, call % 5);
  }
  for (uint64_t call = 0; call < kCalls; call += 3)
    REQUIRE(groups.late(10 * kCalls - call, 100 + call % 7));
  groups.finish();
  uint64_t wrong = 0;
  for (uint64_t call = 0; call < kCalls; ++call) {
    const uint64_t want = call % 3 == 0 ? 100 + call % 7 : call % 5;
    if (groups.group(call) != want) ++wrong;
  }
  CHECK(wrong == 0);
}

}  // namespace
}  // namespace gprof::analysis
