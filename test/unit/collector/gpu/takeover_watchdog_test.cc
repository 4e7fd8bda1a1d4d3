#include "collector/gpu/takeover_watchdog.h"

#include <catch2/catch.hpp>

using gprof::TakeoverWatchdog;

namespace {

constexpr uint64_t kMs = 1'000'000;

TakeoverWatchdog::Calls launches(uint64_t count, uint64_t first_ns) {
  TakeoverWatchdog::Calls c;
  c.launches = count;
  c.first_launch_ns = first_ns;
  return c;
}

TakeoverWatchdog::Calls device_wait(uint64_t end_ns) {
  TakeoverWatchdog::Calls c;
  c.wait_end_ns = end_ns;
  c.device_wait_end_ns = end_ns;
  return c;
}

TakeoverWatchdog::Calls stream_wait(uint64_t end_ns) {
  TakeoverWatchdog::Calls c;
  c.wait_end_ns = end_ns;
  return c;
}

// Flushes every 200 ms up to `until_ns`, as the writer's poll does; true if the watchdog was
// satisfied before one of them.
bool flush_until(TakeoverWatchdog& w, uint64_t from_ns, uint64_t until_ns) {
  for (uint64_t t = from_ns; t <= until_ns; t += 200 * kMs) {
    if (w.stopped(t)) return true;
    w.flushed();
  }
  return false;
}

}  // namespace

TEST_CASE("watchdog: launches, a wait, flushes and no record for a second: stopped", "[cupti]") {
  TakeoverWatchdog w;
  w.calls(launches(10, 100 * kMs));
  w.calls(device_wait(200 * kMs));
  CHECK(flush_until(w, 300 * kMs, 3000 * kMs));
  CHECK(w.since_ns() == 100 * kMs);
  CHECK(w.launches() == 10);
  // Not before the settle time, whatever the flushes.
  TakeoverWatchdog early;
  early.calls(launches(10, 100 * kMs));
  early.calls(device_wait(200 * kMs));
  for (int i = 0; i < 10; ++i) early.flushed();
  CHECK_FALSE(early.stopped(200 * kMs + TakeoverWatchdog::kSettleNs - 1));
  CHECK(early.stopped(200 * kMs + TakeoverWatchdog::kSettleNs));
}

TEST_CASE("watchdog: a program that launches nothing is never flagged", "[cupti]") {
  TakeoverWatchdog w;
  w.calls(device_wait(200 * kMs));
  w.calls(stream_wait(300 * kMs));
  CHECK_FALSE(flush_until(w, 300 * kMs, 60'000 * kMs));
}

TEST_CASE("watchdog: kernels still running (no wait returned) are never flagged", "[cupti]") {
  TakeoverWatchdog w;
  for (uint64_t t = 0; t < 100; ++t) w.calls(launches(50, (100 + t) * kMs));
  CHECK_FALSE(flush_until(w, 300 * kMs, 60'000 * kMs));
  // A wait that returned before the launches proves nothing about them.
  w.calls(device_wait(50 * kMs));
  CHECK_FALSE(flush_until(w, 60'000 * kMs, 120'000 * kMs));
}

TEST_CASE("watchdog: a few launches between flushes are never flagged", "[cupti]") {
  TakeoverWatchdog w;
  w.calls(launches(TakeoverWatchdog::kMinLaunches - 1, 100 * kMs));
  w.calls(device_wait(200 * kMs));
  CHECK_FALSE(flush_until(w, 300 * kMs, 60'000 * kMs));
}

TEST_CASE("watchdog: any GPU record starts it again", "[cupti]") {
  TakeoverWatchdog w;
  for (uint64_t tick = 0; tick < 300; ++tick) {  // a minute of 200 ms passes
    const uint64_t t = tick * 200 * kMs;
    CHECK_FALSE(w.stopped(t));
    w.calls(launches(100, t + 1));
    if (tick % 5 == 0) w.calls(device_wait(t + 10 * kMs));
    w.flushed();
    if (tick % 5 == 1) w.records(3);  // the flush after each wait brings its records
  }
  w.records(0);  // nothing new is no news
  w.calls(device_wait(60'000 * kMs));
  CHECK(flush_until(w, 60'100 * kMs, 62'000 * kMs));
}

TEST_CASE("watchdog: without SYNCHRONIZATION records only a device-wide wait counts", "[cupti]") {
  TakeoverWatchdog stream;
  stream.expect(false);
  stream.calls(launches(10, 100 * kMs));
  stream.calls(stream_wait(200 * kMs));  // maybe another stream: the kernels may still run
  CHECK_FALSE(flush_until(stream, 300 * kMs, 60'000 * kMs));
  stream.calls(device_wait(70'000 * kMs));
  CHECK(flush_until(stream, 70'100 * kMs, 80'000 * kMs));

  TakeoverWatchdog with_records;  // a stream wait makes its own record
  with_records.calls(launches(10, 100 * kMs));
  with_records.calls(stream_wait(200 * kMs));
  CHECK(flush_until(with_records, 300 * kMs, 3000 * kMs));
}

TEST_CASE("watchdog: reset forgets the evidence (kinds turned off or on)", "[cupti]") {
  TakeoverWatchdog w;
  w.calls(launches(10, 100 * kMs));
  w.calls(device_wait(200 * kMs));
  w.reset();
  CHECK_FALSE(flush_until(w, 300 * kMs, 60'000 * kMs));
}
