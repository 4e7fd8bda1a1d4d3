// GPU work whose row depends on its call (call_tagged_work.h) counts once
// the call's tag is known, goes without a call when none will come, and
// joins pushed-out calls' tags: as it comes while their tags are in memory,
// once the file has ended for those on disk, with the same tags.
#include "tools/analysis/aggregate/call_tagged_work.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

namespace gprof::analysis {
namespace {

struct Recorded final : CallTaggedWork::Sink {
  std::vector<std::pair<uint64_t, uint32_t>> counted;  // (seq, tag)
  std::vector<uint64_t> without;                       // seq
  void count(const HeldGpu& work, uint32_t tag) override { counted.emplace_back(work.seq, tag); }
  void without_call(const HeldGpu& work) override { without.push_back(work.seq); }
};

HeldGpu work(uint64_t seq, uint64_t correlation) {
  return HeldGpu{seq, correlation, 100 + seq, 200 + seq, 1, 0, GpuKind::kKernel};
}

TEST_CASE("work waits for its call's tag, given at its read or at its walk") {
  CallSlots slots(4, 8);
  slots.keep_tags();
  Recorded sink;
  CallTaggedWork thread(slots, sink, false);
  uint32_t context = 0;
  // Before its call: waits; then the call is read with its thread's group.
  REQUIRE(slots.gpu(5, 10, context) == CallSlots::Gpu::kWaiting);
  thread.add(work(0, 5), CallSlots::Gpu::kWaiting);
  CHECK(sink.counted.empty());
  REQUIRE(slots.add_call(5, CallSlots::Expect::kOne, 42));
  thread.call_tagged(5, 42);
  CHECK(sink.counted == std::vector<std::pair<uint64_t, uint32_t>>{{0, 42}});
  // Read after its call: counts at once with the call's tag.
  REQUIRE(slots.gpu(5, 10, context) == CallSlots::Gpu::kWaiting);
  thread.add(work(1, 5), CallSlots::Gpu::kWaiting);
  CHECK(sink.counted.back() == std::pair<uint64_t, uint32_t>{1, 42});

  // --range: the tag comes with the walk, so a read call is not enough.
  Recorded ranged_sink;
  CallTaggedWork range(slots, ranged_sink, true);
  REQUIRE(slots.add_call(6, CallSlots::Expect::kOne, 0));
  range.add(work(2, 6), CallSlots::Gpu::kWaiting);
  CHECK(ranged_sink.counted.empty());
  range.call_tagged(6, 7);
  CHECK(ranged_sink.counted == std::vector<std::pair<uint64_t, uint32_t>>{{2, 7}});
}

TEST_CASE("work whose call will not come goes without one") {
  CallSlots slots(4, 8);
  slots.keep_tags();
  Recorded sink;
  CallTaggedWork tagged(slots, sink, false);
  tagged.add(work(0, 0), CallSlots::Gpu::kWaiting);  // id 0: no call
  CHECK(sink.without == std::vector<uint64_t>{0});
  tagged.add(work(1, 9), CallSlots::Gpu::kWaiting);
  tagged.add(work(2, 9), CallSlots::Gpu::kWaiting);
  // A mapping says they are pushed id 11's, whose call has not come either.
  tagged.renamed(9, 11, CallSlots::Gpu::kWaiting);
  tagged.call_tagged(9, 3);
  CHECK(sink.counted.empty());
  tagged.no_more_calls();
  CHECK(sink.without == std::vector<uint64_t>{0, 1, 2});
}

TEST_CASE("work of pushed-out calls joins their tags once the file has ended") {
  CallSlots slots(4, 8);
  slots.keep_tags();
  Recorded sink;
  CallTaggedWork tagged(slots, sink, false);
  tagged.add(work(3, 20), CallSlots::Gpu::kLate);
  tagged.add(work(1, 10), CallSlots::Gpu::kLate);
  tagged.pushed(20, 8);
  tagged.pushed(10, 9);
  REQUIRE(tagged.join_late());
  CHECK(sink.counted == std::vector<std::pair<uint64_t, uint32_t>>{{1, 9}, {3, 8}});

  CallTaggedWork unknown(slots, sink, false);
  unknown.add(work(4, 30), CallSlots::Gpu::kLate);  // its call was not handed on
  CHECK_FALSE(unknown.join_late());
}

TEST_CASE("late work counts as it comes while its call's tag is in memory") {
  using Counted = std::vector<std::pair<uint64_t, uint32_t>>;
  // Calls 1..3000 pushed with tag 1 + id / 1000, each call's work 10 ids
  // later (and the first one's before its push).
  const auto run = [](size_t max_blocks, Counted& before_end) {
    CallSlots slots(4, 8);
    slots.keep_tags();
    Recorded sink;
    CallTaggedWork tagged(slots, sink, false, max_blocks);
    tagged.add(work(0, 1), CallSlots::Gpu::kLate);
    for (uint64_t id = 1; id <= 3000; ++id) {
      tagged.pushed(id, static_cast<uint32_t>(1 + id / 1000));
      if (id > 10) tagged.add(work(id - 10, id - 10), CallSlots::Gpu::kLate);
    }
    for (uint64_t id = 2991; id <= 3000; ++id) tagged.add(work(id, id), CallSlots::Gpu::kLate);
    before_end = sink.counted;
    REQUIRE(tagged.join_late());
    std::sort(sink.counted.begin(), sink.counted.end());
    return sink.counted;
  };
  Counted in_memory_early, on_disk_early;
  const Counted in_memory = run(PushedBlocks::kMaxBlocks, in_memory_early);
  const Counted on_disk = run(0, on_disk_early);
  REQUIRE(in_memory.size() == 3001);
  CHECK(in_memory == on_disk);
  CHECK(in_memory[1500] == std::pair<uint64_t, uint32_t>{1500, 2});
  CHECK(in_memory_early.size() == 3000);  // all but the work before its push
  CHECK(on_disk_early.empty());
}

}  // namespace
}  // namespace gprof::analysis
