#include "collector/activity_buffers.h"

#include <catch2/catch.hpp>

#include <set>
#include <vector>

using gprof::ActivityBuffers;

TEST_CASE("activity buffers: every buffer is handed out once until it comes back", "[cupti]") {
  static ActivityBuffers pool;  // large: not on the stack
  REQUIRE(pool.allocate(4, 8192));
  CHECK(pool.buffer_bytes() == 8192);
  std::set<uint8_t*> handed;
  for (int i = 0; i < 4; ++i) {
    uint8_t* b = pool.acquire();
    REQUIRE(b != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(b) % ActivityBuffers::kAlignment == 0);
    handed.insert(b);
  }
  CHECK(handed.size() == 4);
  CHECK(pool.in_use() == 4);
  CHECK(pool.acquire() == nullptr);  // exhausted: CUPTI will count drops

  uint8_t* first = *handed.begin();
  first[0] = 42;
  REQUIRE(pool.complete(first, 100));
  CHECK_FALSE(pool.complete(first, 100));  // not with CUPTI any more
  std::vector<size_t> valid;
  CHECK(pool.take_completed([&](uint8_t* b, size_t n) {
    CHECK(b == first);
    CHECK(b[0] == 42);
    valid.push_back(n);
  }) == 1);
  CHECK(valid == std::vector<size_t>{100});
  CHECK(pool.acquire() == first);  // recycled
  CHECK(pool.take_completed([](uint8_t*, size_t) {}) == 0);
}

TEST_CASE("activity buffers: pointers that are not ours are refused", "[cupti]") {
  static ActivityBuffers pool;
  REQUIRE(pool.allocate(2, 4096));
  uint8_t* b = pool.acquire();
  REQUIRE(b);
  uint8_t outside[16];
  CHECK_FALSE(pool.complete(outside, 1));
  CHECK_FALSE(pool.complete(b + 8, 1));  // inside a buffer, not its start
  CHECK(pool.complete(b, 1 << 20));      // valid size is capped to the buffer
  pool.take_completed([](uint8_t*, size_t n) { CHECK(n == 4096); });
  CHECK_FALSE(pool.allocate(2, 4096));  // once per process
}

TEST_CASE("activity buffers: an empty pool hands out nothing", "[cupti]") {
  static ActivityBuffers pool;
  CHECK(pool.acquire() == nullptr);
  CHECK_FALSE(pool.allocate(0, 4096));
  CHECK_FALSE(pool.allocate(ActivityBuffers::kMaxBuffers + 1, 4096));
}
