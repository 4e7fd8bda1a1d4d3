// CUPTI timestamps onto the recording clock: an offset, or a line for a clock of other ticks.
#include "collector/gpu/clock_map.h"

#include <catch2/catch.hpp>

using namespace gprof;

TEST_CASE("an offset puts a nanosecond clock on the recording clock", "[clock_map]") {
  const ClockMap m(1'000'000);
  CHECK_FALSE(m.linear());
  CHECK(m.to_ns(5'000'000) == 4'000'000);
  CHECK(m.offset_ns() == 1'000'000);
}

TEST_CASE("a clock of TSC ticks maps through a line", "[clock_map]") {
  // kineto's clock: TSC ticks at 2.1 GHz (an H200 host, 2026-11-29), far from the recording
  // clock. Readings 100 ms apart.
  const uint64_t ns0 = 138'700'000'000, ns1 = ns0 + 100'000'000;
  const uint64_t tick0 = 298'000'000'000, tick1 = tick0 + 210'000'000;
  const ClockMap m = ClockMap::fitted(tick0, ns0, tick1, ns1);
  REQUIRE(m.linear());
  CHECK(m.ns_per_tick() == Approx(1 / 2.1));
  CHECK(m.to_ns(tick1) == ns1);
  CHECK(m.to_ns(tick0) == ns0);
  // A kernel of 21,000 ticks after the readings: 10 us, 3600 s later still on time.
  const uint64_t later = tick1 + 3600ull * 2'100'000'000;
  CHECK(m.to_ns(later + 21'000) - m.to_ns(later) == 10'000);
  CHECK(m.to_ns(later) == ns1 + 3600'000'000'000);
  // Before the anchor too.
  CHECK(m.to_ns(tick0 - 2'100'000) == ns0 - 1'000'000);
}

TEST_CASE("a clock of nanoseconds keeps a plain offset", "[clock_map]") {
  // Two readings of a nanosecond clock, a few ns apart in their spans: no rate, so durations
  // stay exact.
  const ClockMap m = ClockMap::fitted(5'000'000'000, 1'000'000'000, 5'050'000'003, 1'050'000'000);
  CHECK_FALSE(m.linear());
  CHECK(m.to_ns(5'050'000'003 + 20'000) - m.to_ns(5'050'000'003) == 20'000);
  CHECK(m.offset_ns() == 4'000'000'003);
}

TEST_CASE("readings that do not advance give an offset", "[clock_map]") {
  const ClockMap m = ClockMap::fitted(100, 1000, 100, 2000);
  CHECK_FALSE(m.linear());
  CHECK(m.to_ns(100) == 2000);
}
