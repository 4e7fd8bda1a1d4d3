// GPU work whose row depends on its call (call_tagged_work.h) counts once
// the call's tag is known, goes without a call when none will come, and
// joins pushed-out calls' tags once the file has ended.
#include "tools/analysis/aggregate/call_tagged_work.h"

#include <catch2/catch.hpp>

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

}  // namespace
}  // namespace gprof::analysis
