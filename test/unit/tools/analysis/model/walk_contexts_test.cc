// Contexts: interned once per distinct stack, listed through their trie,
// and collected when nothing refers to them any more (walk_contexts.h).
#include "tools/analysis/model/walk_contexts.h"

#include <catch2/catch.hpp>

#include <vector>

namespace gprof::analysis {
namespace {

std::vector<uint32_t> keys_of(const WalkContexts& contexts, uint32_t context) {
  std::vector<uint32_t> out;
  contexts.for_each(context, [&](const WalkTarget& t) { out.push_back(t.key); });
  return out;
}

TEST_CASE("a context lists its targets and its parents', made once") {
  WalkContexts c;
  const WalkTarget a{1, WalkField::kDeviceTotal};
  const WalkTarget b{2, WalkField::kSelfDevice};
  const uint32_t step = c.extend(WalkContexts::kNone, &a, 1);
  const uint32_t call = c.extend(step, &b, 1);
  CHECK(c.extend(step, &b, 1) == call);
  CHECK(keys_of(c, call) == std::vector<uint32_t>{2, 1});
  CHECK(c.extend(call, nullptr, 0) == call);
  CHECK(keys_of(c, WalkContexts::kNone).empty());
}

TEST_CASE("collection keeps what is marked and its parents, renamed, and drops the rest") {
  WalkContexts c;
  std::vector<uint32_t> steps;
  std::vector<uint32_t> calls;
  for (uint32_t i = 0; i < 100; ++i) {  // a range per step, a call inside each
    const WalkTarget step{1000 + i, WalkField::kDeviceTotal};
    const WalkTarget issued{7, WalkField::kIssued};
    steps.push_back(c.extend(WalkContexts::kNone, &step, 1));
    calls.push_back(c.extend(steps.back(), &issued, 1));
  }
  REQUIRE(c.size() == 201);
  c.mark(calls[98]);
  c.mark(calls[99]);
  const std::vector<uint32_t> renamed = c.sweep();
  CHECK(c.size() == 5);
  CHECK(renamed[calls[0]] == WalkContexts::kNone);
  CHECK(keys_of(c, renamed[calls[99]]) == std::vector<uint32_t>{7, 1099});
  CHECK(keys_of(c, renamed[calls[98]]) == std::vector<uint32_t>{7, 1098});
  // Interned again under the new names: the same ids come back.
  const WalkTarget step{1099, WalkField::kDeviceTotal};
  CHECK(c.extend(WalkContexts::kNone, &step, 1) == renamed[steps[99]]);
}

// The index grows while it is asked (far past the recent answers' 1024
// places and its own first size) and is rebuilt by a collection: every
// stack keeps its one id all along.
TEST_CASE("many stacks: each interned once, through growth and collection") {
  WalkContexts c;
  constexpr uint32_t kSteps = 20000;
  std::vector<uint32_t> steps;
  std::vector<uint32_t> calls;
  for (uint32_t i = 0; i < kSteps; ++i) {
    const WalkTarget step{i, WalkField::kDeviceTotal};
    const WalkTarget issued{i % 7, WalkField::kIssued};
    steps.push_back(c.extend(WalkContexts::kNone, &step, 1));
    calls.push_back(c.extend(steps.back(), &issued, 1));
  }
  REQUIRE(c.size() == 2 * kSteps + 1);
  for (uint32_t i = 0; i < kSteps; ++i) {  // asked again, in another order
    const uint32_t j = (i * 7919) % kSteps;
    const WalkTarget step{j, WalkField::kDeviceTotal};
    const WalkTarget issued{j % 7, WalkField::kIssued};
    REQUIRE(c.extend(WalkContexts::kNone, &step, 1) == steps[j]);
    REQUIRE(c.extend(steps[j], &issued, 1) == calls[j]);
    // Another field is another target: a new context.
    const WalkTarget other{j % 7, WalkField::kSelfDevice};
    REQUIRE(c.extend(steps[j], &other, 1) != calls[j]);
  }
  REQUIRE(c.size() == 3 * kSteps + 1);
  for (uint32_t i = 0; i < kSteps; i += 2) c.mark(calls[i]);
  const std::vector<uint32_t> renamed = c.sweep();
  CHECK(c.size() == kSteps + 1);  // half the steps, each with one call
  for (uint32_t i = 0; i < kSteps; ++i) {
    const WalkTarget step{i, WalkField::kDeviceTotal};
    const WalkTarget issued{i % 7, WalkField::kIssued};
    const uint32_t again = c.extend(WalkContexts::kNone, &step, 1);
    if (i % 2 == 0) {
      REQUIRE(again == renamed[steps[i]]);
      REQUIRE(c.extend(again, &issued, 1) == renamed[calls[i]]);
    } else {
      REQUIRE(renamed[steps[i]] == WalkContexts::kNone);
    }
  }
  CHECK(c.size() == kSteps + 1 + kSteps / 2);  // the dropped steps made again
}

}  // namespace
}  // namespace gprof::analysis
