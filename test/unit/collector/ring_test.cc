#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "collector/kernel_registry.h"
#include "collector/loss_counters.h"
#include "collector/ring_pool.h"

using namespace gprof;

TEST_CASE("a ring keeps order and refuses to overwrite") {
  static RingPool pool;
  pool.configure(2, 16 * sizeof(ApiRecord));
  REQUIRE(pool.capacity_records() == 16);
  Ring* ring = pool.claim(7);
  REQUIRE(ring);
  int half_full_signals = 0;
  for (uint64_t i = 0; i < 16; ++i) {
    ApiRecord r{};
    r.start_ns = i;
    Ring::Push pushed = ring->push(r);
    REQUIRE(pushed != Ring::Push::kFull);
    if (pushed == Ring::Push::kHalfFull) {
      ++half_full_signals;
      CHECK(i == 7);  // the push that makes the ring half full
    }
  }
  CHECK(half_full_signals == 1);
  ApiRecord extra{};
  CHECK(ring->push(extra) == Ring::Push::kFull);  // the caller counts the loss

  std::vector<uint64_t> seen;
  ring->drain(10, [&](const ApiRecord& r) { seen.push_back(r.start_ns); });
  CHECK(seen.size() == 10);
  CHECK(ring->push(extra) != Ring::Push::kFull);
  ring->drain(100, [&](const ApiRecord& r) { seen.push_back(r.start_ns); });
  REQUIRE(seen.size() == 17);
  for (uint64_t i = 0; i < 16; ++i) CHECK(seen[i] == i);
}

TEST_CASE("rings run out at the configured thread count and are recycled after orphaning") {
  static RingPool pool;
  pool.configure(2, 4096);
  Ring* a = pool.claim(1);
  Ring* b = pool.claim(2);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(pool.claim(3) == nullptr);
  ApiRecord r{};
  REQUIRE(a->push(r) == Ring::Push::kOk);
  RingPool::orphan(a);
  int visits = 0;
  pool.for_each_in_use([&](Ring& ring) {
    ++visits;
    ring.drain(100, [](const ApiRecord&) {});
  });
  CHECK(visits == 2);
  Ring* c = pool.claim(3);  // a's slot, drained and freed
  CHECK(c == a);
  CHECK(c->tid.load() == 3u);
}

TEST_CASE("one producer and the writer run concurrently without losing order") {
  static RingPool pool;
  pool.configure(1, 64 * sizeof(ApiRecord));
  Ring* ring = pool.claim(1);
  REQUIRE(ring);
  constexpr uint64_t kCount = 200000;
  std::thread producer([&] {
    for (uint64_t i = 0; i < kCount;) {
      ApiRecord r{};
      r.start_ns = i;
      if (ring->push(r) != Ring::Push::kFull) ++i;
    }
  });
  uint64_t expected = 0;
  bool ordered = true;
  while (expected < kCount) {
    ring->drain(32, [&](const ApiRecord& r) {
      ordered = ordered && r.start_ns == expected;
      ++expected;
    });
  }
  producer.join();
  CHECK(ordered);
}

TEST_CASE("kernel registry maps stubs and handles to stable ids") {
  static KernelRegistry registry;
  int stub_a = 0, stub_b = 0, handle_a = 0;
  uint32_t a = registry.register_function(&stub_a, "_Z1av");
  uint32_t b = registry.register_function(&stub_b, "_Z1bv");
  CHECK(a == 1);
  CHECK(b == 2);
  CHECK(registry.id_for_function(&stub_a) == a);
  CHECK(registry.id_for_handle(&stub_b) == b);  // a stub where a handle is allowed
  registry.register_handle(&handle_a, &stub_a);
  CHECK(registry.id_for_handle(&handle_a) == a);
  CHECK(registry.id_for_function(&handle_a) == 0);
  CHECK(registry.published() == 3);
  CHECK(std::string(registry.name(1)) == "_Z1av");
}

TEST_CASE("kernel registration from many threads publishes every name") {
  static KernelRegistry registry;
  static int stubs[8][100];
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 100; ++i) {
        std::string name = "k" + std::to_string(t) + "_" + std::to_string(i);
        registry.register_function(&stubs[t][i], name.c_str());
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(registry.published() == 801);
  for (int t = 0; t < 8; ++t) {
    for (int i = 0; i < 100; ++i) {
      uint32_t id = registry.id_for_function(&stubs[t][i]);
      REQUIRE(id != 0);
      CHECK(std::string(registry.name(id)) == "k" + std::to_string(t) + "_" + std::to_string(i));
    }
  }
}
