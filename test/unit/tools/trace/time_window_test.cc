// --window and --busy-bucket values: times with units, exact to the ns.
#include <catch2/catch.hpp>

#include "tools/trace/time_window.h"

namespace gprof::trace {
namespace {

TEST_CASE("durations take a unit and decimals", "[trace]") {
  CHECK(parse_duration_ns("300ns") == 300);
  CHECK(parse_duration_ns("20us") == 20'000);
  CHECK(parse_duration_ns("250ms") == 250'000'000);
  CHECK(parse_duration_ns("1.5s") == 1'500'000'000);
  CHECK(parse_duration_ns(".5ms") == 500'000);
  CHECK(parse_duration_ns("0.0000000019s") == 1);  // finer than a ns: dropped
  CHECK(parse_duration_ns("0s") == 0);
  for (const char* bad : {"", "1.5", "s", "ms", "-1ms", "1..5s", "1e3ms", "1.5 s", "1h", ".s",
                          "99999999999999999999s", "1.5m"}) {
    INFO(bad);
    CHECK_FALSE(parse_duration_ns(bad).has_value());
  }
}

TEST_CASE("a window has a start, an end or both", "[trace]") {
  const ParsedWindow both = parse_window("1.5s:2s");
  REQUIRE(both.window);
  CHECK(both.window->begin_ns == 1'500'000'000);
  CHECK(both.window->end_ns == 2'000'000'000);
  const ParsedWindow from = parse_window("100ms:");
  REQUIRE(from.window);
  CHECK(from.window->begin_ns == 100'000'000);
  CHECK(from.window->end_ns == INT64_MAX);
  const ParsedWindow to = parse_window(":250ms");
  REQUIRE(to.window);
  CHECK(to.window->begin_ns == INT64_MIN);
  CHECK(to.window->end_ns == 250'000'000);
  CHECK(to.window->overlaps(250'000'000, 300'000'000));
  CHECK_FALSE(to.window->overlaps(250'000'001, 300'000'000));

  CHECK(parse_window("2s:1s").error == "'2s:1s' ends before it starts");
  CHECK(parse_window("1s").error.find("is not START:END") != std::string::npos);
  CHECK(parse_window("1s:2s:3s").error.find("is not START:END") != std::string::npos);
  CHECK(parse_window("abc:1s").error ==
        "'abc' is not a time with a unit (ns, us, ms, s), e.g. 250ms");
}

}  // namespace
}  // namespace gprof::trace
