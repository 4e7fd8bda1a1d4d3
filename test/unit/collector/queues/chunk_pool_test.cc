#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "collector/queues/chunk_pool.h"
#include "collector/queues/thread_queues.h"

using namespace gprof;

TEST_CASE("the pool maps chunks up to its cap and no further") {
  static ChunkPool pool;
  pool.configure(3 * ChunkPool::kChunksPerMapping * kChunkBytes + 12345);  // rounds down
  CHECK(pool.max_bytes() == 3 * ChunkPool::kChunksPerMapping * kChunkBytes);
  pool.stock(5);
  CHECK(pool.free_chunks() == ChunkPool::kChunksPerMapping);  // whole mappings
  pool.stock(1000);
  CHECK(pool.free_chunks() == 3 * ChunkPool::kChunksPerMapping);
  CHECK(pool.at_cap());
  std::vector<Chunk*> taken;
  while (Chunk* c = pool.take()) taken.push_back(c);
  CHECK(taken.size() == 3 * ChunkPool::kChunksPerMapping);
  // A new chunk has nothing published: the writer reads nothing from it.
  for (Chunk* c : taken) CHECK(c->committed.load() == c->data());
  CHECK(pool.take() == nullptr);  // at the cap: the caller waits or drops
  pool.stock(1000);
  CHECK(pool.take() == nullptr);
  taken.back()->committed.store(taken.back()->data() + 77);
  pool.give_back(taken.back());
  Chunk* again = pool.take();
  CHECK(again == taken.back());
  CHECK(again->committed.load() == again->data());  // reset for its next owner
  CHECK(again->next.load() == nullptr);
}

TEST_CASE("threads growing the pool at once get distinct chunks and stop at the cap") {
  // What recording threads do when the writer has not stocked the pool in
  // time: each maps a group itself, racing the others and the writer.
  static ChunkPool pool;
  constexpr uint32_t kGroups = 10;
  pool.configure(kGroups * ChunkPool::kChunksPerMapping * kChunkBytes);
  std::vector<std::vector<Chunk*>> got(8);
  std::vector<int> grown(8, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      for (;;) {
        if (Chunk* c = pool.take()) {
          got[t].push_back(c);
        } else if (pool.grow()) {
          ++grown[t];
        } else {
          break;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<Chunk*> all;
  std::set<uint32_t> indices;
  int groups = 0;
  for (size_t t = 0; t < got.size(); ++t) {
    groups += grown[t];
    for (Chunk* c : got[t]) {
      all.insert(c);
      indices.insert(c->index);
      c->data()[kChunkData - 1] = 1;  // mapped and writable to its end
    }
  }
  CHECK(groups == static_cast<int>(kGroups));
  CHECK(all.size() == kGroups * ChunkPool::kChunksPerMapping);
  CHECK(indices.size() == all.size());
  CHECK(*indices.rbegin() == kGroups * ChunkPool::kChunksPerMapping - 1);
  CHECK(pool.at_cap());
  CHECK_FALSE(pool.grow());
}

TEST_CASE("threads taking chunks while the writer gives them back never share one") {
  static ChunkPool pool;
  pool.configure(2 * ChunkPool::kChunksPerMapping * kChunkBytes);
  pool.stock(1000);
  constexpr int kThreads = 4, kRounds = 20000;
  std::atomic<int> owners[ChunkPool::kMaxChunks] = {};
  std::atomic<bool> shared{false};
  std::atomic<int> done{0};
  // The writer: gives back what the threads hand it, as the real one does.
  std::atomic<Chunk*> handed[kThreads] = {};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRounds;) {
        Chunk* c = pool.take();
        if (!c) continue;
        if (owners[c->index].fetch_add(1) != 0) shared = true;
        owners[c->index].fetch_sub(1);
        Chunk* expected = nullptr;
        while (!handed[t].compare_exchange_weak(expected, c)) expected = nullptr;
        ++i;
      }
      done.fetch_add(1);
    });
  }
  while (done.load() < kThreads || std::any_of(std::begin(handed), std::end(handed),
                                               [](auto& h) { return h.load() != nullptr; })) {
    for (auto& h : handed)
      if (Chunk* c = h.exchange(nullptr)) pool.give_back(c);
  }
  for (auto& th : threads) th.join();
  CHECK_FALSE(shared.load());
  CHECK(pool.free_chunks() == 2 * ChunkPool::kChunksPerMapping);
}

TEST_CASE("a queue is reused only after its thread exited and it was freed") {
  static ThreadQueues queues;
  ThreadQueue* a = queues.claim(11);
  ThreadQueue* b = queues.claim(12);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a != b);
  ThreadQueues::orphan(a);
  // Orphaned is not free: the writer has not read it yet.
  ThreadQueue* c = queues.claim(13);
  CHECK(c != a);
  a->state.store(static_cast<int>(QueueState::kFree));  // what the writer does once it is read
  ThreadQueue* d = queues.claim(14);
  CHECK(d == a);
  CHECK(d->tid.load() == 14u);
  int seen = 0;
  queues.for_each([&](ThreadQueue&) { ++seen; });
  CHECK(seen == 3);
  CHECK(queues.threads_seen() == 4);
}

TEST_CASE("any number of threads get a queue of their own") {
  static ThreadQueues queues;
  std::vector<std::thread> threads;
  std::vector<ThreadQueue*> got(300);
  for (int t = 0; t < 300; ++t) threads.emplace_back([&, t] { got[t] = queues.claim(t + 1); });
  for (auto& th : threads) th.join();
  std::set<ThreadQueue*> distinct(got.begin(), got.end());
  CHECK(distinct.size() == 300);
  CHECK(distinct.count(nullptr) == 0);
}
