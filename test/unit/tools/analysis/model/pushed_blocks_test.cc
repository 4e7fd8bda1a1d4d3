// Pushed calls' values in blocks of ids (pushed_blocks.h): found while their
// block is in memory; a block that meets a 256th value, and the oldest past
// the limit, hand their calls to the owner and keep no more.
#include "tools/analysis/model/pushed_blocks.h"

#include <catch2/catch.hpp>

#include <map>

namespace gprof::analysis {
namespace {

using Evicted = std::map<uint64_t, uint32_t>;

TEST_CASE("values are found while their block is in memory") {
  PushedBlocks blocks;
  Evicted evicted;
  const auto evict = [&](uint64_t id, uint32_t value) { evicted[id] = value; };
  CHECK(blocks.keep(5, 7, evict));
  CHECK(blocks.keep(6, 8, evict));
  CHECK(blocks.keep(PushedBlocks::kBlockIds + 1, 7, evict));
  CHECK(blocks.find(5) == 7);
  CHECK(blocks.find(6) == 8);
  CHECK(blocks.find(PushedBlocks::kBlockIds + 1) == 7);
  CHECK(blocks.find(4) == PushedBlocks::kNone);  // in a block, not kept
  CHECK(blocks.find(10 * PushedBlocks::kBlockIds) == PushedBlocks::kNone);
  CHECK_FALSE(blocks.keep(9, PushedBlocks::kNone, evict));
  CHECK(blocks.blocks_in_memory() == 2);
  CHECK(evicted.empty());
}

TEST_CASE("a block's 256th value sends the block to disk") {
  PushedBlocks blocks;
  Evicted evicted;
  const auto evict = [&](uint64_t id, uint32_t value) { evicted[id] = value; };
  for (uint32_t id = 0; id < 255; ++id) REQUIRE(blocks.keep(id, 1000 + id, evict));
  CHECK(blocks.keep(255, 1000, evict));  // a value it has
  CHECK_FALSE(blocks.keep(256, 5000, evict));
  CHECK(evicted.size() == 256);
  CHECK(evicted[254] == 1254);
  CHECK(evicted[255] == 1000);
  CHECK(blocks.find(3) == PushedBlocks::kNone);
  CHECK_FALSE(blocks.keep(257, 1000, evict));  // the block is on disk for good
  CHECK(blocks.blocks_in_memory() == 0);
}

TEST_CASE("past the limit the oldest block goes to disk") {
  PushedBlocks blocks(2);
  Evicted evicted;
  const auto evict = [&](uint64_t id, uint32_t value) { evicted[id] = value; };
  const uint64_t n = PushedBlocks::kBlockIds;
  REQUIRE(blocks.keep(1, 1, evict));
  REQUIRE(blocks.keep(n + 1, 2, evict));
  REQUIRE(blocks.keep(2 * n + 1, 3, evict));  // the first block leaves
  CHECK(evicted == Evicted{{1, 1}});
  CHECK(blocks.find(1) == PushedBlocks::kNone);
  CHECK(blocks.find(n + 1) == 2);
  CHECK(blocks.find(2 * n + 1) == 3);
  CHECK_FALSE(blocks.keep(2, 1, evict));
  CHECK(blocks.blocks_in_memory() == 2);
  PushedBlocks none(0);
  CHECK_FALSE(none.keep(1, 1, evict));
}

}  // namespace
}  // namespace gprof::analysis
