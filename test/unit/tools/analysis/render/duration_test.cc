// Times given on the command line (--window, --busy-bucket, --min-time).
#include <catch2/catch.hpp>

#include "tools/analysis/render/duration.h"

namespace gprof::analysis {
namespace {

TEST_CASE("durations take a unit and decimals, exact to the ns", "[duration]") {
  CHECK(parse_duration_ns("300ns") == 300);
  CHECK(parse_duration_ns("20us") == 20'000);
  CHECK(parse_duration_ns("250ms") == 250'000'000);
  CHECK(parse_duration_ns("1.5s") == 1'500'000'000);
  CHECK(parse_duration_ns(".5ms") == 500'000);
  CHECK(parse_duration_ns("0.0000000019s") == 1);  // finer than a ns: dropped
  CHECK(parse_duration_ns("0s") == 0);
  CHECK(parse_duration_ns("0") == 0);  // the one number that needs no unit
  for (const char* bad : {"", "20", "1.5", "s", "ms", "-1ms", "1..5s", "1e3ms", "1.5 s", "1h", ".s",
                          "99999999999999999999s", "1.5m"}) {
    INFO(bad);
    CHECK_FALSE(parse_duration_ns(bad).has_value());
  }
}

}  // namespace
}  // namespace gprof::analysis
