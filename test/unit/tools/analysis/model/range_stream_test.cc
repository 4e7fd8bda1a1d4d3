// The streaming range pairing (trace, export, dump) (range_stream.h) against what it
// replaces: analysis::RangePairing over the whole file, then the crossing
// push/pop ranges found by sorting each thread's ranges (the trace's rule
// before ranges streamed). Same ranges, numbers, crossings and counts, on
// hand-built cases and on random runs of several threads and domains.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "tools/analysis/model/nvtx_ranges.h"
#include "tools/analysis/model/range_stream.h"

namespace gprof::analysis {
namespace {

using analysis::Range;
using analysis::RangeKind;

struct Out {
  Range range;
  uint64_t number;
  bool crossing;
};

// The reference: a thread's push/pop ranges by start, longer first, and a
// stack of the enclosing ones; a range that ends after the innermost
// enclosing one crosses it.
std::vector<bool> crossing_by_sorting(const std::vector<Range>& ranges) {
  std::vector<size_t> order;
  for (size_t i = 0; i < ranges.size(); ++i)
    if (ranges[i].kind == RangeKind::kPushPop) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const Range& a = ranges[x];
    const Range& b = ranges[y];
    return std::tuple(a.tid, a.start_ns, b.end_ns) < std::tuple(b.tid, b.start_ns, a.end_ns);
  });
  std::vector<bool> crossing(ranges.size(), false);
  std::vector<const Range*> open;
  for (size_t i : order) {
    const Range& r = ranges[i];
    if (!open.empty() && open.back()->tid != r.tid) open.clear();
    while (!open.empty() && open.back()->end_ns <= r.start_ns) open.pop_back();
    if (!open.empty() && r.end_ns > open.back()->end_ns)
      crossing[i] = true;
    else
      open.push_back(&r);
  }
  return crossing;
}

RangeEvent event(RangeOp op, uint32_t tid, uint64_t time, uint32_t domain = 0, uint64_t id = 0,
                 uint32_t name = 1) {
  RangeEvent e{};
  e.op = op;
  e.tid = tid;
  e.time_ns = time;
  e.domain = domain;
  e.range_id = id;
  e.name = name;
  e.seq = time % 3 == 0 ? time + 1 : 0;
  e.op_id = time % 5;
  return e;
}

// Both ways; fails the test where they differ.
void compare(const std::vector<RangeEvent>& events, uint64_t last_ns, size_t sort_memory = 4096) {
  analysis::RangePairing pairing;
  for (const RangeEvent& e : events) pairing.add(e);
  analysis::RangeCounts expected_counts;
  const std::vector<Range> expected = pairing.finish(last_ns, expected_counts);
  const std::vector<bool> crossing = crossing_by_sorting(expected);

  std::vector<Out> got;
  RangeStream stream(sort_memory, [&](const Range& r, uint64_t number, bool crosses) {
    got.push_back(Out{r, number, crosses});
  });
  for (const RangeEvent& e : events) stream.add(e);
  analysis::RangeCounts counts;
  stream.finish(last_ns, counts);
  std::sort(got.begin(), got.end(), [](const Out& a, const Out& b) { return a.number < b.number; });

  REQUIRE(got.size() == expected.size());
  CHECK(stream.opened() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("range " << i);
    const Range& a = got[i].range;
    const Range& b = expected[i];
    REQUIRE(got[i].number == i);
    CHECK(a.start_ns == b.start_ns);
    CHECK(a.end_ns == b.end_ns);
    CHECK(a.tid == b.tid);
    CHECK(a.end_tid == b.end_tid);
    CHECK(a.name == b.name);
    CHECK(a.domain == b.domain);
    CHECK(a.seq == b.seq);
    CHECK(a.op_id == b.op_id);
    CHECK(a.kind == b.kind);
    CHECK(a.open_at_exit == b.open_at_exit);
    CHECK(got[i].crossing == crossing[i]);
  }
  CHECK(counts.push_pop == expected_counts.push_pop);
  CHECK(counts.start_end == expected_counts.start_end);
  CHECK(counts.marks == expected_counts.marks);
  CHECK(counts.unbalanced_pops == expected_counts.unbalanced_pops);
  CHECK(counts.ends_without_start == expected_counts.ends_without_start);
  CHECK(counts.open_at_exit == expected_counts.open_at_exit);
  CHECK(counts.cross_thread == expected_counts.cross_thread);
  CHECK(stream.thread_names() == pairing.thread_names());
}

TEST_CASE("nested ranges of one domain never cross") {
  compare({event(RangeOp::kPush, 1, 10), event(RangeOp::kPush, 1, 11), event(RangeOp::kPop, 1, 12),
           event(RangeOp::kPush, 1, 13), event(RangeOp::kPop, 1, 14), event(RangeOp::kPop, 1, 20)},
          30);
}

TEST_CASE("ranges of two domains that overlap without nesting cross") {
  // A [10, 20) in domain 1, B [15, 25) in domain 2: B crosses A. C [16, 30)
  // in domain 3 starts inside both and ends after them: it crosses A (B,
  // which crosses, is not what it is judged against).
  const std::vector<RangeEvent> events = {
      event(RangeOp::kPush, 1, 10, 1), event(RangeOp::kPush, 1, 15, 2),
      event(RangeOp::kPush, 1, 16, 3), event(RangeOp::kPop, 1, 20, 1),
      event(RangeOp::kPop, 1, 25, 2),  event(RangeOp::kPop, 1, 30, 3)};
  compare(events, 40);
  std::vector<bool> crossing(3);
  RangeStream stream(
      4096, [&](const Range&, uint64_t number, bool crosses) { crossing[number] = crosses; });
  for (const RangeEvent& e : events) stream.add(e);
  analysis::RangeCounts counts;
  stream.finish(40, counts);
  CHECK(crossing == std::vector<bool>{false, true, true});
}

TEST_CASE("a range open at exit crosses what ended inside it") {
  compare({event(RangeOp::kPush, 1, 10, 1), event(RangeOp::kPush, 1, 15, 2),
           event(RangeOp::kPop, 1, 20, 1), event(RangeOp::kPush, 1, 21, 1)},
          40);
}

TEST_CASE("start/end ranges pair by id across threads, ends before starts in the file") {
  compare({event(RangeOp::kEnd, 2, 30, 0, 7), event(RangeOp::kStart, 1, 10, 0, 7),
           event(RangeOp::kStart, 1, 12, 0, 8), event(RangeOp::kEnd, 1, 5, 0, 9),
           event(RangeOp::kStart, 1, 40, 0, 7), event(RangeOp::kMark, 3, 41),
           event(RangeOp::kPop, 3, 42)},
          50);
}

// Threads of random push/pop (several domains), start/end, marks and
// names, times increasing per thread, batches of threads interleaved.
std::vector<RangeEvent> random_run(uint32_t seed, int threads, int domains, int per_thread) {
  std::mt19937 rng(seed);
  std::vector<std::vector<RangeEvent>> by_thread(threads);
  uint64_t next_id = 1;
  std::vector<uint64_t> started;
  for (int t = 0; t < threads; ++t) {
    const uint32_t tid = 100 + t;
    uint64_t time = rng() % 50;
    std::vector<std::vector<int>> depth(domains);
    for (int i = 0; i < per_thread; ++i) {
      time += rng() % 4;  // equal times too
      const uint32_t domain = rng() % domains;
      const uint32_t name = 1 + rng() % 5;
      switch (rng() % 16) {
        case 0:
          by_thread[t].push_back(event(RangeOp::kMark, tid, time, domain, 0, name));
          break;
        case 1:
          started.push_back(next_id);
          by_thread[t].push_back(event(RangeOp::kStart, tid, time, domain, next_id++, name));
          break;
        case 2:
          if (!started.empty()) {
            const size_t k = rng() % started.size();
            by_thread[t].push_back(event(RangeOp::kEnd, tid, time, domain, started[k]));
            if (rng() % 2) started.erase(started.begin() + static_cast<long>(k));
          }
          break;
        case 3:
          by_thread[t].push_back(event(RangeOp::kNameThread, tid, time, 0, tid, name));
          break;
        case 4:
          by_thread[t].push_back(event(RangeOp::kPop, tid, time, domain));  // may be unbalanced
          break;
        default:
          if (rng() % 2) {
            by_thread[t].push_back(event(RangeOp::kPush, tid, time, domain, 0, name));
          } else {
            by_thread[t].push_back(event(RangeOp::kPop, tid, time, domain));
          }
      }
    }
  }
  std::vector<RangeEvent> events;
  std::vector<size_t> at(threads, 0);
  while (true) {
    std::vector<int> left;
    for (int t = 0; t < threads; ++t)
      if (at[t] < by_thread[t].size()) left.push_back(t);
    if (left.empty()) break;
    const int t = left[rng() % left.size()];
    const size_t n = std::min<size_t>(1 + rng() % 20, by_thread[t].size() - at[t]);
    for (size_t i = 0; i < n; ++i) events.push_back(by_thread[t][at[t]++]);
  }
  return events;
}

TEST_CASE("random runs: the same ranges, crossings and counts as pairing the whole file") {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    INFO("seed " << seed);
    const int domains = 1 + static_cast<int>(seed % 3);
    const std::vector<RangeEvent> events = random_run(seed, 1 + seed % 4, domains, 400);
    // Tiny sorters: the start/end pairing reads back spilled runs.
    compare(events, 100000, seed % 2 ? 64 : 4096);
  }
}

TEST_CASE("what a thread keeps stays small: nesting ranges keep nothing once closed") {
  // One domain's ranges inside a long one of another domain: none crosses,
  // so none is kept (checked through the result only: the count is bounded
  // by construction, and a million ranges run in a few MB).
  std::vector<RangeEvent> events = {event(RangeOp::kPush, 1, 1, 2)};
  for (uint64_t i = 0; i < 1000; ++i) {
    events.push_back(event(RangeOp::kPush, 1, 10 + 4 * i, 1));
    events.push_back(event(RangeOp::kPush, 1, 11 + 4 * i, 1));
    events.push_back(event(RangeOp::kPop, 1, 12 + 4 * i, 1));
    events.push_back(event(RangeOp::kPop, 1, 13 + 4 * i, 1));
  }
  events.push_back(event(RangeOp::kPop, 1, 100000, 2));
  compare(events, 200000);
}

}  // namespace
}  // namespace gprof::analysis
