// The sorter's runs merged on helper threads: the same records in the same
// order as its own cursor, ties included, whatever the number of lanes.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "test/unit/tools/analysis/read/spill_records.h"
#include "tools/analysis/read/spill_merge.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {
namespace {

using spill_test::ByKey;
using spill_test::drain;
using spill_test::Rec;

std::vector<Rec> filled(SpillSorter<Rec, ByKey>& sorter, size_t n) {
  std::mt19937 random(7);
  std::vector<Rec> added;
  for (uint32_t i = 0; i < n; ++i) {
    const Rec r{static_cast<uint32_t>(random() % 97), i};  // many ties, across runs
    sorter.add(r);
    added.push_back(r);
  }
  return added;
}

TEST_CASE("spill merge: lanes give the cursor's order, ties by run", "[trace]") {
  // Budgets: everything in memory, a few runs, more runs than a batch holds records.
  for (size_t budget : {size_t{100000}, size_t{3000}, size_t{5}}) {
    for (unsigned lanes : {1u, 2u, 3u, 7u}) {
      CAPTURE(budget, lanes);
      SpillSorter<Rec, ByKey> sorter(budget);
      filled(sorter, 10000);
      const std::vector<Rec> expected = drain(sorter);
      std::vector<Rec> merged;
      {
        SpillMerge<Rec, ByKey> merge(sorter, lanes);
        Rec r;
        while (merge.next(r)) merged.push_back(r);
        CHECK_FALSE(merge.next(r));  // stays at the end
      }
      REQUIRE(merged.size() == expected.size());
      size_t differ = 0;
      for (size_t i = 0; i < merged.size(); ++i)
        differ += merged[i].key != expected[i].key || merged[i].order != expected[i].order;
      CHECK(differ == 0);
    }
  }
}

TEST_CASE("spill merge: stopped early, its threads end", "[trace]") {
  SpillSorter<Rec, ByKey> sorter(10);
  filled(sorter, 50000);
  SpillMerge<Rec, ByKey> merge(sorter, 2);
  Rec r;
  REQUIRE(merge.next(r));
  CHECK(r.key == 0);
  // The destructor joins lanes blocked on full batches.
}

}  // namespace
}  // namespace gprof::analysis
