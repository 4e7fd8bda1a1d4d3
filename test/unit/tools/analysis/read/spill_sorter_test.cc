// The external sort under the trace: many runs merge into one order, equal
// keys keep the order they were added in, and cursors can be opened again.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "test/unit/tools/analysis/read/spill_records.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {
namespace {

using spill_test::ByKey;
using spill_test::drain;
using spill_test::Rec;

// The same order, sorted through prefix keys that tie more often than the
// order does (spill_sorter.h): ties go to the full comparison, then to the
// order of adding.
struct ByKeyWithPrefix {
  bool operator()(const Rec& a, const Rec& b) const { return a.key < b.key; }
  static std::pair<uint64_t, uint64_t> prefix(const Rec& r) { return {r.key / 10, 0}; }
};
// Both integers of the prefix carry the order, packed with the index into
// one 64-bit key (spill_sorter.h's packed_order).
struct ByKeyTwoWords {
  bool operator()(const Rec& a, const Rec& b) const { return a.key < b.key; }
  static std::pair<uint64_t, uint64_t> prefix(const Rec& r) { return {r.key / 100, r.key / 10}; }
};
// Prefixes whose spans do not fit in 64 bits with the index: sorted as
// (prefix, index) keys instead (keyed_order).
struct ByKeyWide {
  bool operator()(const Rec& a, const Rec& b) const { return a.key < b.key; }
  static std::pair<uint64_t, uint64_t> prefix(const Rec& r) {
    return {uint64_t{r.key / 10} << 40, uint64_t{r.key / 10} << 30};
  }
};
// A second integer whose span and the index need more than 64 bits: its low
// bits are left out of the packed key, and the records that then tie are
// put in order by the comparison.
struct ByKeyDroppedBits {
  bool operator()(const Rec& a, const Rec& b) const { return a.key < b.key; }
  static std::pair<uint64_t, uint64_t> prefix(const Rec& r) { return {0, uint64_t{r.key} << 50}; }
};
static_assert(analysis::HasPrefix<ByKeyWithPrefix, Rec>);
static_assert(!analysis::HasPrefix<ByKey, Rec>);

TEMPLATE_TEST_CASE("spill sorter: many runs merge stably, like std::stable_sort", "[trace]", ByKey,
                   ByKeyWithPrefix, ByKeyTwoWords, ByKeyWide, ByKeyDroppedBits) {
  for (size_t budget : {size_t{1}, size_t{2}, size_t{7}, size_t{64}, size_t{100000}}) {
    analysis::SpillSorter<Rec, TestType> sorter(budget);
    std::mt19937 random(42);
    std::vector<Rec> expected;
    for (uint32_t i = 0; i < 5000; ++i) {
      const Rec r{static_cast<uint32_t>(random() % 50), i};
      sorter.add(r);
      expected.push_back(r);
    }
    std::stable_sort(expected.begin(), expected.end(), ByKey());
    CHECK(sorter.size() == 5000);
    CHECK((budget >= 5000) == (sorter.runs() == 0));  // no file when it fits
    const std::vector<Rec> first = drain(sorter);
    REQUIRE(first.size() == expected.size());
    for (size_t i = 0; i < first.size(); ++i) {
      CHECK(first[i].key == expected[i].key);
      CHECK(first[i].order == expected[i].order);
    }
    const std::vector<Rec> again = drain(sorter);  // a second cursor reads it all again
    CHECK(again.size() == first.size());
  }
}

// Records that come mostly in order (runs of a thread's records, interleaved)
// are merged, not sorted (spill_sorter.h); spills on a thread of their own
// write the same runs. Either way: std::stable_sort's order.
TEMPLATE_TEST_CASE("spill sorter: runs in order and background spills keep the order", "[trace]",
                   ByKey, ByKeyWithPrefix, ByKeyTwoWords, ByKeyWide, ByKeyDroppedBits) {
  for (const bool background : {false, true}) {
    for (size_t budget : {size_t{1}, size_t{3}, size_t{64}, size_t{1000}, size_t{100000}}) {
      for (const int shape : {0, 1, 2}) {
        analysis::SpillSorter<Rec, TestType> sorter(budget);
        if (background) sorter.spill_in_background();
        std::mt19937 random(7);
        std::vector<Rec> expected;
        uint32_t next[4] = {0, 1000, 2000, 3000};  // four "threads" of rising keys
        for (uint32_t i = 0; i < 6000; ++i) {
          uint32_t key = 0;
          if (shape == 0) {
            key = i / 3;  // in order, with ties
          } else if (shape == 1) {
            key = next[(i / 50) % 4]++ / 2;  // batches of four rising streams
          } else {
            key = static_cast<uint32_t>(random() % 100);  // many short runs
          }
          const Rec r{key, i};
          sorter.add(r);
          expected.push_back(r);
        }
        std::stable_sort(expected.begin(), expected.end(), ByKey());
        CHECK(sorter.size() == 6000);
        const std::vector<Rec> got = drain(sorter);
        REQUIRE(got.size() == expected.size());
        bool same = true;
        for (size_t i = 0; i < got.size(); ++i)
          same = same && got[i].key == expected[i].key && got[i].order == expected[i].order;
        INFO("background " << background << ", budget " << budget << ", shape " << shape);
        CHECK(same);
      }
    }
  }
}

TEST_CASE("spill sorter: a sorter moved after background spills reads them all", "[trace]") {
  analysis::SpillSorter<Rec, ByKey> sorter(16);
  sorter.spill_in_background();
  for (uint32_t i = 0; i < 1000; ++i) sorter.add(Rec{1000 - i, i});
  analysis::SpillSorter<Rec, ByKey> moved(std::move(sorter));
  const std::vector<Rec> got = drain(moved);
  REQUIRE(got.size() == 1000);
  CHECK(std::is_sorted(got.begin(), got.end(), ByKey()));
  CHECK(got.front().key == 1);
}

// Plain values in std::less order (the medians) are radix-sorted where they
// are: values of every width, spilled or not, come out as std::sort's.
TEST_CASE("spill sorter: plain values", "[trace]") {
  for (size_t budget : {size_t{1}, size_t{100}, size_t{1000}, size_t{100000}}) {
    analysis::SpillSorter<uint64_t, std::less<uint64_t>> sorter(budget);
    std::mt19937_64 random(5);
    std::vector<uint64_t> expected;
    for (int i = 0; i < 20000; ++i) {
      const uint64_t v = random() >> (random() % 64);  // 0 to 64 bits wide
      sorter.add(v);
      expected.push_back(v);
    }
    std::sort(expected.begin(), expected.end());
    std::vector<uint64_t> got;
    auto cursor = sorter.sorted();
    uint64_t v;
    while (cursor.next(v)) got.push_back(v);
    INFO("budget " << budget);
    CHECK(got == expected);
  }
}

TEST_CASE("spill sorter: empty", "[trace]") {
  analysis::SpillSorter<Rec, ByKey> sorter(4);
  CHECK(drain(sorter).empty());
}

}  // namespace
}  // namespace gprof::analysis
