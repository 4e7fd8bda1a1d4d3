// The progress line's rate is the last few seconds', not the average since
// the start: a slower second pass shows as slower at once.
#include "tools/gpuprof/cli/recent_rate.h"

#include <catch2/catch.hpp>

namespace gprof::cli {
namespace {

using Clock = RecentRate::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("the rate is the window's, not the run's") {
  const Clock::time_point t0{};
  RecentRate rate(t0, seconds(3));
  RecentRate::Rates r;
  uint64_t bytes = 0, records = 0;
  // Five seconds at 100 bytes and 10 records a second, then five at 10 and 1.
  for (int s = 1; s <= 10; ++s) {
    bytes += s <= 5 ? 100 : 10;
    records += s <= 5 ? 10 : 1;
    r = rate.add(t0 + seconds(s), bytes, records);
    if (s == 2) CHECK(r.bytes_per_s == Approx(100));  // less than a window: since the start
    if (s == 5) CHECK(r.bytes_per_s == Approx(100));
  }
  // From the sample at 7 s: 30 bytes and 3 records in 3 s (the run's average: 55 and 5.5).
  CHECK(r.bytes_per_s == Approx(10));
  CHECK(r.records_per_s == Approx(1));
}

TEST_CASE("a window spans the newest sample at least its length old") {
  const Clock::time_point t0{};
  RecentRate rate(t0, seconds(3));
  rate.add(t0 + milliseconds(500), 50, 5);
  rate.add(t0 + milliseconds(3600), 360, 36);
  // Samples at 0, 0.5 and 3.6 s: at 4 s the newest at least 3 s old is 0.5 s.
  const RecentRate::Rates r = rate.add(t0 + seconds(4), 1000, 100);
  CHECK(r.bytes_per_s == Approx(950 / 3.5));
  CHECK(r.records_per_s == Approx(95 / 3.5));
}

TEST_CASE("counts taken back restart the window") {
  const Clock::time_point t0{};
  RecentRate rate(t0, seconds(3));
  rate.add(t0 + seconds(1), 1000, 100);
  // At 5 s the window starts at the 1 s sample: counts below it give no rate rather than a
  // wrapped one.
  CHECK(rate.add(t0 + seconds(5), 500, 50).bytes_per_s == 0);
  rate.restart(t0 + seconds(5), 500, 50);
  const RecentRate::Rates r = rate.add(t0 + seconds(6), 700, 70);
  CHECK(r.bytes_per_s == Approx(200));
  CHECK(r.records_per_s == Approx(20));
  CHECK(rate.add(t0 + seconds(6), 700, 70).bytes_per_s ==
        Approx(200));  // same instant: same window
}

}  // namespace
}  // namespace gprof::cli
