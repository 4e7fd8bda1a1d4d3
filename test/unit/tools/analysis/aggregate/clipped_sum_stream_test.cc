// The streaming sum of synchronize time (clipped_sum_stream.h) against
// clipped_sum() and ThroughputVisitor's count of overlapping calls.
#include "tools/analysis/aggregate/clipped_sum_stream.h"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "test/unit/tools/analysis/aggregate/interval_orders.h"
#include "tools/analysis/aggregate/gpu_busy.h"

namespace gprof::analysis {
namespace {

using namespace gprof::test;

uint64_t overlapping(const std::vector<Interval>& intervals, uint64_t begin, uint64_t end) {
  uint64_t n = 0;
  for (const auto& [start, stop] : intervals)
    if (start < end && stop > begin) ++n;
  return n;
}

TEST_CASE("clipped sum stream: equal to clipped_sum for any order, window and bound",
          "[throughput_stream]") {
  SpillLimits tiny;
  tiny.chunk_intervals = 4;
  tiny.max_chunks = 4;
  tiny.block_intervals = 3;
  for (const SpillLimits& limits : {tiny, SpillLimits{}}) {
    for (const Order order : all_orders()) {
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        std::mt19937_64 rng(seed * 104729 + static_cast<uint64_t>(order));
        // Threads: one stream each, calls back to back or apart.
        std::vector<Interval> syncs = random_work(rng, 200 * seed, static_cast<int>(seed), 500);
        arrange(syncs, order, rng);
        ClippedSumStream stream(limits);
        for (const auto& [start, end] : syncs) stream.add(start, end);
        if (limits.chunk_intervals == 4) {
          CHECK(stream.chunks() > 0);
          CHECK(stream.chunks() <= 4);
        }
        for (const auto& [begin, end] : random_windows(rng, syncs)) {
          INFO(order_name(order) << ", seed " << seed << ", window " << begin << ".." << end);
          const ClippedSum sum = stream.sum(begin, end);
          CHECK(sum.ns == clipped_sum(syncs, begin, end));
          CHECK(sum.overlapping == overlapping(syncs, begin, end));
        }
      }
    }
  }
}

TEST_CASE("clipped sum stream: overlaps count as often as they occur; reversed calls overlap",
          "[throughput_stream]") {
  ClippedSumStream stream;
  stream.add(0, 100);
  stream.add(50, 150);
  stream.add(80, 60);  // ends before it starts: no time, still a call in the window
  const ClippedSum sum = stream.sum(50, 100);
  CHECK(sum.ns == 50 + 50);
  CHECK(sum.overlapping == 3);
}

TEST_CASE("clipped sum stream: chunks with an interval on the window's edge",
          "[throughput_stream]") {
  SpillLimits limits;
  limits.chunk_intervals = 2;
  ClippedSumStream stream(limits);
  stream.add(10, 20);
  stream.add(30, 40);  // a chunk on disk: starts 10..30, ends 20..40
  stream.add(40, 50);
  stream.add(45, 60);  // another: starts 40..45, ends 50..60
  REQUIRE(stream.chunks() == 2);
  // Ends at the second's last start, begins at the first's first end: calls
  // starting at the end or ending at the begin do not overlap.
  const ClippedSum at_edges = stream.sum(20, 45);
  CHECK(at_edges.ns == 10 + 5);
  CHECK(at_edges.overlapping == 2);
  const ClippedSum inside = stream.sum(10, 60);
  CHECK(inside.ns == 10 + 10 + 10 + 15);
  CHECK(inside.overlapping == 4);
  const ClippedSum outside = stream.sum(60, 100);
  CHECK(outside.ns == 0);
  CHECK(outside.overlapping == 0);

  // A chunk inside the window but for a call of no length at its end.
  ClippedSumStream zero(limits);
  zero.add(20, 30);
  zero.add(45, 45);
  REQUIRE(zero.chunks() == 1);
  const ClippedSum z = zero.sum(20, 45);
  CHECK(z.ns == 10);
  CHECK(z.overlapping == 1);
}

}  // namespace
}  // namespace gprof::analysis
