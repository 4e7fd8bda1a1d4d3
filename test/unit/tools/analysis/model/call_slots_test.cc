// GPU records find their calls by correlation in bounded memory
// (call_slots.h), and what the table can no longer answer is a conflict.
#include "tools/analysis/model/call_slots.h"

#include <catch2/catch.hpp>

namespace gprof::analysis {
namespace {

TEST_CASE("GPU time waits for its call, then for its walk, then goes to its context") {
  CallSlots slots(4, 8);
  uint32_t context = 0;
  // Before the call: waits.
  CHECK(slots.gpu(7, 100, context) == CallSlots::Gpu::kWaiting);
  REQUIRE(slots.add_call(7));
  CHECK(slots.gpu(7, 20, context) == CallSlots::Gpu::kWaiting);
  uint64_t ns = 0;
  REQUIRE(slots.opened(7, 42, ns));
  CHECK(ns == 120);
  CHECK(slots.gpu(7, 5, context) == CallSlots::Gpu::kOpened);
  CHECK(context == 42);
  CHECK(slots.unpaired() == 0);
}

TEST_CASE("records without a call are unpaired, those with id 0 too") {
  CallSlots slots(4, 8);
  uint32_t context = 0;
  CHECK(slots.gpu(0, 10, context) == CallSlots::Gpu::kWaiting);
  CHECK(slots.gpu(9, 10, context) == CallSlots::Gpu::kWaiting);
  CHECK(slots.gpu(9, 10, context) == CallSlots::Gpu::kWaiting);
  CHECK(slots.unpaired() == 3);
}

TEST_CASE("a waiting record's id has a call once it comes, and never paired if none does") {
  CallSlots slots(4, 8);
  uint32_t context = 0;
  CHECK(slots.gpu(9, 10, context) == CallSlots::Gpu::kWaiting);
  CHECK(!slots.has_call(9));
  CHECK(slots.gpu(11, 10, context) == CallSlots::Gpu::kWaiting);
  REQUIRE(slots.add_call(11));
  CHECK(slots.has_call(11));
  CHECK(slots.gpu(11, 10, context) == CallSlots::Gpu::kWaiting);  // not walked yet
  CHECK(!slots.has_call(0));
  // The file has ended: 9 and 0 never paired, 11 did.
  CHECK(slots.never_paired(9));
  CHECK(slots.never_paired(0));
  CHECK(!slots.never_paired(11));
}

TEST_CASE(
    "a call pushed out of the table makes its GPU record late, and is handed out when "
    "its work had not come") {
  CallSlots slots(2, 8);  // 4 slots
  uint32_t context = 0;
  uint64_t ns = 0;
  // 1 and 2 launch a kernel, 3 launches a graph, 4 and 5 issue nothing.
  const CallSlots::Expect expect[] = {CallSlots::Expect::kOne, CallSlots::Expect::kOne,
                                      CallSlots::Expect::kMany, CallSlots::Expect::kNothing,
                                      CallSlots::Expect::kNothing};
  for (uint64_t id = 1; id <= 4; ++id) {
    REQUIRE(slots.add_call(id, expect[id - 1]));
    REQUIRE(slots.opened(id, static_cast<uint32_t>(id), ns));
  }
  CHECK(slots.gpu(2, 10, context) == CallSlots::Gpu::kOpened);  // 2's kernel came
  CHECK(slots.gpu(3, 10, context) == CallSlots::Gpu::kOpened);  // one of 3's
  for (uint64_t id = 5; id <= 8; ++id) {
    REQUIRE(slots.add_call(id, CallSlots::Expect::kNothing));
    REQUIRE(slots.opened(id, static_cast<uint32_t>(id), ns));
  }
  // 5..8 took every slot: 1 (no record yet) and 3 (a graph: more may come) are handed out.
  REQUIRE(slots.pushed().size() == 2);
  CHECK(slots.pushed()[0].correlation == 1);
  CHECK(slots.pushed()[0].context == 1);
  CHECK(slots.pushed()[1].correlation == 3);
  slots.pushed().clear();
  CHECK(slots.gpu(1, 10, context) == CallSlots::Gpu::kLate);
  CHECK(slots.gpu(3, 10, context) == CallSlots::Gpu::kLate);
  CHECK(slots.unpaired() == 0);
  REQUIRE(slots.add_call(9));
  REQUIRE(slots.opened(9, 9, ns));
  // Id 9 took id 5's slot.
  CHECK(slots.gpu(5, 10, context) == CallSlots::Gpu::kLate);
  // A call in its slot still answers at once.
  CHECK(slots.gpu(8, 10, context) == CallSlots::Gpu::kOpened);
  CHECK(context == 8);
  CHECK(slots.gpu(9, 10, context) == CallSlots::Gpu::kOpened);
  CHECK(context == 9);
  // A call never seen is not late: a library's driver launch.
  CHECK(slots.gpu(60, 10, context) == CallSlots::Gpu::kWaiting);
}

TEST_CASE("a call pushed out of the table makes its late GPU record late, not waiting") {
  CallSlots slots(2, 8);  // 4 slots
  uint32_t context = 0;
  uint64_t ns = 0;
  for (uint64_t id = 1; id <= 5; ++id) {
    REQUIRE(slots.add_call(id));
    REQUIRE(slots.opened(id, static_cast<uint32_t>(id), ns));
  }
  // Id 5 took id 1's slot.
  CHECK(slots.gpu(1, 10, context) == CallSlots::Gpu::kLate);
  CHECK(slots.gpu(5, 10, context) == CallSlots::Gpu::kOpened);
  CHECK(context == 5);
  // A call never seen is no conflict: a library's driver launch.
  CHECK(slots.gpu(6, 10, context) == CallSlots::Gpu::kWaiting);
}

TEST_CASE("a call not yet walked keeps its place however many calls come after it") {
  // A thread's last call waits for the thread's next event (thread_stream.h)
  // while other threads make many calls.
  CallSlots slots(2, 8);  // 4 slots
  uint32_t context = 0;
  uint64_t ns = 0;
  REQUIRE(slots.add_call(1));
  CHECK(slots.gpu(1, 30, context) == CallSlots::Gpu::kWaiting);
  for (uint64_t id = 2; id <= 20; ++id) {
    REQUIRE(slots.add_call(id));
    REQUIRE(slots.opened(id, 7, ns));
  }
  CHECK(slots.gpu(1, 12, context) == CallSlots::Gpu::kWaiting);
  REQUIRE(slots.opened(1, 99, ns));
  CHECK(ns == 42);
  CHECK(slots.gpu(1, 5, context) == CallSlots::Gpu::kOpened);
  CHECK(context == 99);
  CHECK_FALSE(slots.add_call(1));  // still one call per id
}

TEST_CASE("an id given up as unpaired refuses a call that comes later") {
  CallSlots slots(4, 2);  // at most 2 ids wait
  uint32_t context = 0;
  for (uint64_t id = 100; id < 104; ++id)
    CHECK(slots.gpu(id, 1, context) == CallSlots::Gpu::kWaiting);
  CHECK(slots.unpaired() == 4);  // 2 given up, 2 still waiting
  CHECK_FALSE(slots.add_call(100));
  CHECK(slots.add_call(103));  // still waiting: pairs
  CHECK(slots.unpaired() == 3);
}

TEST_CASE("a call's tag follows it aside, back to the table, and into pushed()") {
  // --group-by thread: a GPU row's group is its call's thread's.
  CallSlots slots(2, 8);  // 4 slots
  slots.keep_tags();
  uint32_t context = 0;
  uint64_t ns = 0;
  REQUIRE(slots.add_call(1, CallSlots::Expect::kOne, 501));  // not walked: goes aside
  CHECK(slots.tag(1) == 501);
  for (uint64_t id = 2; id <= 5; ++id) {
    REQUIRE(slots.add_call(id, CallSlots::Expect::kOne, static_cast<uint32_t>(500 + id)));
    REQUIRE(slots.opened(id, 7, ns));
  }
  CHECK(slots.tag(1) == 501);  // aside, id 5 in its slot
  CHECK(slots.tag(5) == 505);
  REQUIRE(slots.opened(1, 8, ns));  // back in its slot, pushing out 5
  CHECK(slots.tag(1) == 501);
  REQUIRE(slots.pushed().size() == 1);
  CHECK(slots.pushed()[0].correlation == 5);
  CHECK(slots.pushed()[0].tag == 505);
  CHECK(slots.gpu(5, 10, context) == CallSlots::Gpu::kLate);
  // Ids given up say so: no call will claim their records.
  CallSlots waiting(4, 1);
  CHECK(waiting.gpu(100, 1, context) == CallSlots::Gpu::kWaiting);
  CHECK(waiting.gpu(101, 1, context) == CallSlots::Gpu::kWaiting);
  CHECK(waiting.gave_up(100));
  CHECK_FALSE(waiting.gave_up(101));
}

TEST_CASE("a tag set while an id waits for its call goes to the call, and moves with a rename") {
  // --group-by stream: the first work of a call can come before the call.
  CallSlots slots(4, 8);
  slots.keep_tags();
  uint32_t context = 0;
  CHECK(slots.gpu(7, 10, context) == CallSlots::Gpu::kWaiting);
  slots.set_tag(7, 55);
  CHECK(slots.tag(7) == 55);
  REQUIRE(slots.add_call(7, CallSlots::Expect::kOne, 0));
  CHECK(slots.tag(7) == 55);
  // A CUPTI id's waiting tag goes to the pushed id's waiting records, then
  // to its call; a walked call keeps none (its owner checks).
  CHECK(slots.gpu(9, 10, context) == CallSlots::Gpu::kWaiting);
  slots.set_tag(9, 66);
  CallSlots::Gpu outcome{};
  uint64_t records = 0, ns = 0;
  uint32_t tag = 0;
  REQUIRE(slots.rename(9, 100, outcome, records, ns, context, tag));
  CHECK(tag == 66);
  CHECK(slots.tag(100) == 66);
  REQUIRE(slots.add_call(100, CallSlots::Expect::kOne, 0));
  CHECK(slots.tag(100) == 66);
  REQUIRE(slots.add_call(11, CallSlots::Expect::kOne, 0));
  REQUIRE(slots.opened(11, 3, ns));
  CHECK(slots.gpu(12, 10, context) == CallSlots::Gpu::kWaiting);
  slots.set_tag(12, 77);
  REQUIRE(slots.rename(12, 11, outcome, records, ns, context, tag));
  CHECK(outcome == CallSlots::Gpu::kOpened);
  CHECK(tag == 77);
  CHECK(slots.tag(11) == 0);
}

TEST_CASE("two calls with one id are a conflict") {
  CallSlots slots(4, 8);
  REQUIRE(slots.add_call(3));
  CHECK_FALSE(slots.add_call(3));
}

// A call whose one work record came holds no context through a collection
// (a row per op made a context per call, kept for 2^20 calls); one still
// waiting for its work, or for many, keeps its own, renamed.
TEST_CASE("a collection lets go of the contexts of calls whose one work record came") {
  CallSlots slots(4, 8);
  WalkContexts contexts;
  const WalkTarget a{1, WalkField::kIssued}, b{2, WalkField::kIssued}, c{3, WalkField::kIssued};
  const uint32_t done = contexts.extend(WalkContexts::kNone, &a, 1);
  const uint32_t due = contexts.extend(WalkContexts::kNone, &b, 1);
  const uint32_t many = contexts.extend(WalkContexts::kNone, &c, 1);
  uint32_t context = 0;
  uint64_t ns = 0;
  REQUIRE(slots.add_call(1, CallSlots::Expect::kOne));
  REQUIRE(slots.add_call(2, CallSlots::Expect::kOne));
  REQUIRE(slots.add_call(3, CallSlots::Expect::kMany));
  // Call 1's work came before its walk, call 2 has only a sync record.
  CHECK(slots.gpu(1, 10, context) == CallSlots::Gpu::kWaiting);
  REQUIRE(slots.opened(1, done, ns));
  REQUIRE(slots.opened(2, due, ns));
  REQUIRE(slots.opened(3, many, ns));
  CHECK(slots.gpu(2, 0, context) == CallSlots::Gpu::kOpened);
  CHECK(slots.gpu(3, 10, context) == CallSlots::Gpu::kOpened);

  slots.mark_contexts(contexts);
  const std::vector<uint32_t> renamed = contexts.sweep();
  slots.rename_contexts(renamed);
  CHECK(contexts.size() == 3);  // the empty context, call 2's and call 3's
  CHECK(renamed[done] == WalkContexts::kNone);
  CHECK(slots.gpu(2, 7, context) == CallSlots::Gpu::kOpened);
  CHECK(context == renamed[due]);
  CHECK(slots.gpu(3, 7, context) == CallSlots::Gpu::kOpened);
  CHECK(context == renamed[many]);
  // More work for call 1 has no context to go to: late, as for a call
  // pushed out without being kept aside (the owner's conflict); a sync
  // record is no work.
  CHECK(slots.gpu(1, 0, context) == CallSlots::Gpu::kOpened);
  CHECK(slots.gpu(1, 5, context) == CallSlots::Gpu::kLate);
}

}  // namespace
}  // namespace gprof::analysis
