#include "collector/gpu/activity_buffers.h"

#include <catch2/catch.hpp>

#include <set>
#include <thread>
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

TEST_CASE("activity buffers: the pool grows on demand up to its cap, from any thread", "[cupti]") {
  static ActivityBuffers pool;
  REQUIRE(pool.allocate(2, 4096, 40));
  CHECK(pool.count() == 2);
  CHECK(pool.max_count() == 40);
  // 8 threads, as CUPTI's requests come from app threads: each takes buffers
  // until none is left; every buffer is distinct and writable.
  std::vector<std::vector<uint8_t*>> got(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      while (uint8_t* b = pool.acquire()) {
        b[4095] = static_cast<uint8_t>(t);
        got[t].push_back(b);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<uint8_t*> all;
  for (const auto& g : got) all.insert(g.begin(), g.end());
  CHECK(all.size() == 40);
  CHECK(pool.count() == 40);
  CHECK(pool.in_use() == 40);
  // A grown buffer completes and recycles like the first ones.
  // Any buffer handed out (under load one thread may have got none at all).
  uint8_t* last = nullptr;
  for (const auto& g : got)
    for (uint8_t* b : g)
      if (!last || b > last) last = b;
  REQUIRE(last != nullptr);
  REQUIRE(pool.complete(last, 10));
  CHECK(pool.take_completed([&](uint8_t* b, size_t n) { CHECK((b == last && n == 10)); }) == 1);
  CHECK(pool.acquire() == last);
  CHECK(pool.acquire() == nullptr);
}

TEST_CASE("activity buffers: a finalized CUPTI's buffers come back free, zeroed when promised",
          "[cupti]") {
  static ActivityBuffers pool;
  REQUIRE(pool.allocate(3, 4096));
  pool.zero_on_recycle(true);
  uint8_t* held = pool.acquire();
  uint8_t* done = pool.acquire();
  REQUIRE(held != nullptr);
  REQUIRE(done != nullptr);
  held[100] = 7;  // a record CUPTI wrote before it let go of the buffer
  REQUIRE(pool.complete(done, 64));
  CHECK(pool.reclaim_from_finalized_cupti() == 1);  // the completed one is the writer's
  CHECK(pool.in_use() == 0);
  CHECK(held[100] == 0);
  CHECK_FALSE(pool.complete(held, 64));  // a completion after the finalize is not taken
  CHECK(pool.take_completed([](uint8_t*, size_t) {}) == 1);
  CHECK(pool.reclaim_from_finalized_cupti() == 0);
}
