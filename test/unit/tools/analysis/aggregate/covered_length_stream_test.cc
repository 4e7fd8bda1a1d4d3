// The streaming union (covered_length_stream.h) against covered_length() on
// the same intervals, for every arrival order, window and memory bound.
#include "tools/analysis/aggregate/covered_length_stream.h"

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "test/unit/tools/analysis/aggregate/interval_orders.h"
#include "tools/analysis/aggregate/gpu_busy.h"

namespace gprof::analysis {
namespace {

using namespace gprof::test;

// Tiny bounds: a few intervals in memory, chunks of 4, summaries merging,
// late runs merging every second one.
SpillLimits tiny_limits() {
  SpillLimits limits;
  limits.memory_intervals = 8;
  limits.chunk_intervals = 4;
  limits.max_chunks = 4;
  limits.block_intervals = 3;
  limits.runs_per_level = 2;
  return limits;
}

SpillLimits small_limits() {
  SpillLimits limits;
  limits.memory_intervals = 256;
  limits.chunk_intervals = 32;
  limits.max_chunks = 16;
  limits.block_intervals = 16;
  limits.runs_per_level = 3;
  return limits;
}

void check_all_windows(const std::vector<Interval>& intervals, CoveredLengthStream& stream,
                       std::mt19937_64& rng) {
  for (const auto& [begin, end] : random_windows(rng, intervals)) {
    std::vector<Interval> copy = intervals;
    INFO("window " << begin << ".." << end);
    CHECK(stream.covered(begin, end) == covered_length(copy, begin, end));
  }
}

TEST_CASE("covered length stream: equal to covered_length for any order, window and bound",
          "[throughput_stream]") {
  // Whether the stream must have gone to disk for 3000 intervals (small: it
  // depends on how much the streams overlap).
  enum class Spills { kYes, kMaybe, kNo };
  struct Bound {
    const char* name;
    SpillLimits limits;
    Spills spills;
  };
  const std::vector<Bound> bounds = {{"tiny", tiny_limits(), Spills::kYes},
                                     {"small", small_limits(), Spills::kMaybe},
                                     {"default", {}, Spills::kNo}};
  for (const Bound& bound : bounds) {
    for (const Order order : all_orders()) {
      for (uint64_t seed = 1; seed <= 6; ++seed) {
        std::mt19937_64 rng(seed * 7919 + static_cast<uint64_t>(order));
        const size_t count = seed <= 2 ? 40 * seed : 3000;
        std::vector<Interval> intervals = random_work(rng, count, 1 + seed % 4, seed * 1000);
        arrange(intervals, order, rng);
        CoveredLengthStream stream(bound.limits);
        for (const auto& [start, end] : intervals) stream.add(start, end);
        INFO(bound.name << " bound, " << order_name(order) << ", seed " << seed);
        if (count >= 3000 && bound.spills != Spills::kMaybe)
          CHECK(stream.spilled() == (bound.spills == Spills::kYes));
        check_all_windows(intervals, stream, rng);
      }
    }
  }
}

TEST_CASE("covered length stream: default bounds, past 64K intervals, in buffer order",
          "[throughput_stream]") {
  // One stream with gaps, so that intervals stay apart and the memory fills:
  // halves of 32K go to disk in chunks of 4096. Late buffers wait in memory
  // until they are as many as the recent intervals a merge would move, and
  // are merged before those leave: none has to go to a late run.
  std::mt19937_64 rng(2024);
  std::vector<Interval> intervals = random_work(rng, 200000, 1, 0);
  arrange(intervals, Order::kBuffers, rng);
  CoveredLengthStream stream;
  for (const auto& [start, end] : intervals) stream.add(start, end);
  CHECK(stream.spilled());
  CHECK(stream.late_runs() == 0);
  check_all_windows(intervals, stream, rng);
}

TEST_CASE("covered length stream: late runs merge; adding after a query goes on",
          "[throughput_stream]") {
  std::mt19937_64 rng(42);
  std::vector<Interval> intervals = random_work(rng, 5000, 3, 0);
  arrange(intervals, Order::kShuffled, rng);
  CoveredLengthStream stream(tiny_limits());
  std::vector<Interval> seen;
  for (size_t i = 0; i < intervals.size(); ++i) {
    stream.add(intervals[i].first, intervals[i].second);
    seen.push_back(intervals[i]);
    if (i % 1000 == 999) check_all_windows(seen, stream, rng);
  }
  // Two per level at most, and a few levels for 5000 intervals.
  CHECK(stream.late_runs() > 0);
  CHECK(stream.late_runs() <= 16);
}

TEST_CASE("covered length stream: edges, touching, empty and reversed intervals",
          "[throughput_stream]") {
  CoveredLengthStream stream(tiny_limits());
  const std::vector<Interval> intervals = {{10, 20}, {20, 30}, {5, 5},   {40, 35},  {25, 50},
                                           {60, 70}, {0, 1},   {69, 80}, {100, 200}};
  for (const auto& [start, end] : intervals) stream.add(start, end);
  CHECK(stream.covered(0, 1000) == 1 + 40 + 20 + 100);
  CHECK(stream.covered(15, 65) == 35 + 5);
  CHECK(stream.covered(50, 60) == 0);
  CHECK(stream.covered(65, 15) == 0);
  CoveredLengthStream none;
  CHECK(none.covered(0, 100) == 0);
}

}  // namespace
}  // namespace gprof::analysis
