// --window values: two times with units, either may be left out.
#include <catch2/catch.hpp>

#include "tools/trace/time_window.h"

namespace gprof::trace {
namespace {

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
