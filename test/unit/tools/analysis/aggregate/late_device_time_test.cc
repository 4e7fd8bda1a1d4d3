// GPU time that comes after its call left the pairing table
// (late_device_time.h): joined with the call's device targets once the file
// has ended, summed per call, memory fields and calls without targets left
// out, past the in-memory budget too; a late record whose call was never
// kept is an error, not lost time. Calls with the same targets share one
// snapshot, past the snapshots' limit calls keep their own targets, and a
// context id that names another context after a sweep gets its own.
// Blocks of calls with one snapshot are joined in memory, the others on
// disk, with the same sums.
#include "tools/analysis/aggregate/late_device_time.h"

#include <catch2/catch.hpp>

#include <map>
#include <tuple>

namespace gprof::analysis {
namespace {

using Added = std::map<std::pair<uint32_t, WalkField>, uint64_t>;

Added join(LateDeviceTime& late, bool* ok) {
  Added out;
  *ok = late.join([&](uint32_t key, WalkField field, uint64_t ns) { out[{key, field}] += ns; });
  return out;
}

TEST_CASE("late work goes to its pushed call's device targets, summed") {
  WalkContexts contexts;
  const WalkTarget range[] = {{1, WalkField::kDeviceTotal}, {1, WalkField::kTotalMemory}};
  const WalkTarget call{2, WalkField::kIssued};
  const uint32_t in_range = contexts.extend(WalkContexts::kNone, range, 2);
  const uint32_t launch = contexts.extend(in_range, &call, 1);
  LateDeviceTime late;
  late.late(10, 5);  // may come before its call is pushed: joined at the end
  late.pushed(10, contexts, launch);
  late.pushed(11, contexts, WalkContexts::kNone);  // no targets: its time goes nowhere
  late.late(10, 7);
  late.late(11, 100);
  late.late(10, 0);  // no time: nothing kept
  bool ok = false;
  const Added added = join(late, &ok);
  CHECK(ok);
  CHECK(added == Added{{{1, WalkField::kDeviceTotal}, 12}, {{2, WalkField::kIssued}, 12}});
}

TEST_CASE("late work of a call never kept fails the join") {
  WalkContexts contexts;
  const WalkTarget call{2, WalkField::kIssued};
  LateDeviceTime late;
  late.pushed(10, contexts, contexts.extend(WalkContexts::kNone, &call, 1));
  late.late(9, 1);
  bool ok = true;
  join(late, &ok);
  CHECK_FALSE(ok);
}

TEST_CASE("many pushed calls, past the in-memory budget, each get their own late time") {
  WalkContexts contexts;
  const WalkTarget call{3, WalkField::kSelfDevice};
  const uint32_t context = contexts.extend(WalkContexts::kNone, &call, 1);
  LateDeviceTime late;
  constexpr uint64_t kCalls = 600'000;  // over 4 MiB of 16-byte records: spilled
  for (uint64_t id = kCalls; id > 0; --id) late.pushed(id, contexts, context);
  for (uint64_t id = 1; id <= kCalls; ++id) late.late(id, id % 7);
  bool ok = false;
  const Added added = join(late, &ok);
  CHECK(ok);
  uint64_t expected = 0;
  for (uint64_t id = 1; id <= kCalls; ++id) expected += id % 7;
  CHECK(added == Added{{{3, WalkField::kSelfDevice}, expected}});
  CHECK(late.snapshots() == 1);
}

// Two calls' contexts inside one range: their own rows 1 and 2, the
// range's CUDA total in row 3.
struct TwoCalls {
  WalkContexts contexts;
  uint32_t first = 0, second = 0;
  TwoCalls() {
    const WalkTarget a{1, WalkField::kIssued}, b{2, WalkField::kIssued};
    const WalkTarget range{3, WalkField::kDeviceTotal};
    const uint32_t in_range = contexts.extend(WalkContexts::kNone, &range, 1);
    first = contexts.extend(in_range, &a, 1);
    second = contexts.extend(in_range, &b, 1);
  }
};

TEST_CASE("past the snapshots' limit, calls keep their own targets") {
  TwoCalls calls;
  WalkContexts& contexts = calls.contexts;
  const uint32_t first = calls.first, second = calls.second;
  LateDeviceTime late(1);
  late.pushed(1, contexts, first);
  late.pushed(2, contexts, second);               // a second list: over the limit of one
  late.pushed(3, contexts, first);                // the snapshot it already has
  late.pushed(4, contexts, WalkContexts::kNone);  // no targets, past the limit
  for (uint64_t id = 1; id <= 4; ++id) late.late(id, id * 10);
  bool ok = false;
  const Added added = join(late, &ok);
  CHECK(ok);
  CHECK(late.snapshots() == 1);
  CHECK(added == Added{{{1, WalkField::kIssued}, 40},
                       {{2, WalkField::kIssued}, 20},
                       {{3, WalkField::kDeviceTotal}, 60}});
}

TEST_CASE("a context id renamed by a sweep is looked up again") {
  WalkContexts contexts;
  const WalkTarget a{1, WalkField::kIssued}, b{2, WalkField::kSelfDevice};
  const uint32_t dropped = contexts.extend(WalkContexts::kNone, &a, 1);
  const uint32_t kept = contexts.extend(WalkContexts::kNone, &b, 1);
  LateDeviceTime late;
  late.pushed(1, contexts, dropped);
  contexts.mark(kept);
  const uint32_t renamed = contexts.sweep()[kept];
  REQUIRE(renamed == dropped);  // the id now names the other context
  late.pushed(2, contexts, renamed);
  late.late(1, 5);
  late.late(2, 7);
  bool ok = false;
  const Added added = join(late, &ok);
  CHECK(ok);
  CHECK(added == Added{{{1, WalkField::kIssued}, 5}, {{2, WalkField::kSelfDevice}, 7}});
}

// A launch loop's shape: two contexts, pushes in id order with some ids
// never pushed, late work before and after its call's push. `second(id)`:
// whether call `id` has the second context.
struct Loop {
  Added added;
  bool ok = false;
  size_t blocks_in_memory = 0;
};

template <typename Second>
Loop loop(size_t max_blocks, Second second) {
  TwoCalls calls;
  WalkContexts& contexts = calls.contexts;
  const uint32_t one = calls.first, two = calls.second;
  LateDeviceTime late(LateDeviceTime::kMaxSnapshots, max_blocks);
  late.late(5, 1000);  // before its push
  for (uint64_t id = 1; id <= 100'000; ++id) {
    if (id > 50 && (id - 50) % 1000 != 0) late.late(id - 50, (id - 50) % 13 + 1);
    if (id % 1000 == 0) continue;  // paired before it was pushed
    late.pushed(id, contexts, second(id) ? two : one);
  }
  for (uint64_t id = 99'951; id <= 100'000; ++id)
    if (id % 1000 != 0) late.late(id, id % 13 + 1);
  Loop out;
  out.added = join(late, &out.ok);
  out.blocks_in_memory = late.blocks_in_memory();
  return out;
}

template <typename Second>
Added expected(Second second) {
  uint64_t to_a = 1000, to_b = 0;  // id 5's work before its push
  if (second(5)) std::swap(to_a, to_b);
  for (uint64_t id = 1; id <= 100'000; ++id)
    if (id % 1000 != 0) (second(id) ? to_b : to_a) += id % 13 + 1;
  return Added{{{1, WalkField::kIssued}, to_a},
               {{2, WalkField::kIssued}, to_b},
               {{3, WalkField::kDeviceTotal}, to_a + to_b}};
}

TEST_CASE("pushed calls join the same in memory as on disk") {
  const auto by_5000 = [](uint64_t id) { return (id / 5000) % 2 == 1; };
  const auto by_call = [](uint64_t id) { return id % 2 == 1; };
  // Every block stays in memory, with one or two snapshots.
  Loop l = loop(PushedBlocks::kMaxBlocks, by_5000);
  CHECK(l.ok);
  CHECK(l.added == expected(by_5000));
  CHECK(l.blocks_in_memory == 98);
  l = loop(PushedBlocks::kMaxBlocks, by_call);
  CHECK(l.ok);
  CHECK(l.added == expected(by_call));
  CHECK(l.blocks_in_memory == 98);
  // Past the blocks' limit the oldest go to disk.
  l = loop(10, by_call);
  CHECK(l.ok);
  CHECK(l.added == expected(by_call));
  CHECK(l.blocks_in_memory == 10);
  // No blocks: all on disk.
  l = loop(0, by_5000);
  CHECK(l.ok);
  CHECK(l.added == expected(by_5000));
  CHECK(l.blocks_in_memory == 0);
}

TEST_CASE("a block with more than 255 snapshots goes to disk") {
  WalkContexts contexts;
  std::vector<uint32_t> context(301);
  for (uint32_t k = 1; k <= 300; ++k) {
    const WalkTarget call{k, WalkField::kIssued};
    context[k] = contexts.extend(WalkContexts::kNone, &call, 1);
  }
  LateDeviceTime late;
  Added expected;
  for (uint64_t id = 1; id <= 300; ++id) {
    late.pushed(id, contexts, context[id]);
    late.late(id, id);                      // in memory up to the 255th snapshot
    if (id / 2 != 0) late.late(id / 2, 1);  // again, on disk once the block is
    expected[{static_cast<uint32_t>(id), WalkField::kIssued}] += id;
    if (id / 2 != 0) expected[{static_cast<uint32_t>(id / 2), WalkField::kIssued}] += 1;
  }
  bool ok = false;
  CHECK(join(late, &ok) == expected);
  CHECK(ok);
  CHECK(late.blocks_in_memory() == 0);
  CHECK(late.snapshots() == 300);
}

}  // namespace
}  // namespace gprof::analysis
