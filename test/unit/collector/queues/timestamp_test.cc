#include <catch2/catch.hpp>

#include <time.h>

#include <cstdint>
#include <vector>

#include "collector/queues/timestamp.h"

using namespace gprof;

TEST_CASE("TSC ticks convert to CLOCK_MONOTONIC within a microsecond over seconds") {
  if (!cpu_has_invariant_tsc()) {
    WARN("no invariant TSC on this CPU: the clock_gettime fallback is what runs here");
    return;
  }
  init_timestamps(true);
  REQUIRE(g_timestamp_source == TimestampSource::kTsc);
  TickConverter converter(TimestampSource::kTsc);
  converter.add(take_calibration_pair());
  // 3 s of a writer's life: a pair every 20 ms, and in between reads to
  // check, each converted as the writer would (after the pair that follows it
  // may or may not have been taken).
  struct Check {
    uint64_t ticks, before_ns, after_ns;
  };
  std::vector<Check> checks;
  uint64_t worst = 0;
  const uint64_t end = clock_ns() + 3'000'000'000ull;
  while (clock_ns() < end) {
    for (int i = 0; i < 20; ++i) {
      timespec pause{0, 1'000'000};
      nanosleep(&pause, nullptr);
      Check c;
      c.before_ns = clock_ns();
      c.ticks = timestamp();
      c.after_ns = clock_ns();
      checks.push_back(c);
    }
    converter.add(take_calibration_pair());
    for (const Check& c : checks) {
      const uint64_t ns = converter.to_ns(c.ticks);
      const uint64_t low = c.before_ns, high = c.after_ns;
      const uint64_t error = ns < low ? low - ns : ns > high ? ns - high : 0;
      if (error > worst) worst = error;
    }
    checks.clear();
  }
  INFO("worst conversion error " << worst << " ns, " << converter.pairs() << " pairs, "
                                 << converter.ticks_per_second() / 1e9 << " GHz");
  CHECK(worst < 1000);
  CHECK(converter.pairs() >= 100);
  CHECK(converter.ticks_per_second() > 1e8);
  CHECK(converter.max_uncertainty_ns() < 100000);
  CHECK(converter.max_residual_ns() < 100000);
}

TEST_CASE("the conversion is continuous at each pair and increasing") {
  TickConverter converter(TimestampSource::kTsc);
  converter.add({1000, 5000, 1});
  converter.add({1000 + 30'000'000, 5000 + 10'000'000 + 5000, 1});  // 1/3 ns a tick, roughly
  converter.add({1000 + 60'000'000, 5000 + 20'000'000 + 5000, 1});
  CHECK(converter.to_ns(1000) == 5000);
  CHECK(converter.to_ns(1000 + 30'000'000) == 5000 + 10'000'000 + 5000);
  CHECK(converter.to_ns(1000 + 60'000'000) == 5000 + 20'000'000 + 5000);
  uint64_t previous = 0;
  for (uint64_t t = 0; t < 100'000'000; t += 999'983) {
    const uint64_t ns = converter.to_ns(t);
    CHECK(ns >= previous);
    previous = ns;
  }
  // Pairs closer than kMinSpacingNs do not make a segment of their own.
  converter.add({1000 + 60'000'001, 5000 + 20'000'000 + 5001, 1});
  CHECK(converter.pairs() == 4);
  const uint64_t extended = converter.to_ns(1000 + 90'000'000);  // the last segment's rate
  CHECK(extended + 1 >= 5000 + 30'000'000 + 5000);
  CHECK(extended <= 5000 + 30'000'000 + 5000);
}

TEST_CASE("with clock_gettime as the source, ticks are nanoseconds") {
  TickConverter converter(TimestampSource::kClockGettime);
  converter.add({123, 123, 0});
  CHECK(converter.to_ns(987654321) == 987654321);
  CHECK(converter.ticks_per_second() == 0);
}
