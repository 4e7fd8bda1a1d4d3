#include "tools/analysis/render/format.h"

#include <catch2/catch.hpp>

namespace gprof::analysis {
namespace {

TEST_CASE("format_time: torch's units and boundaries", "[format]") {
  CHECK(format_time(0) == "0.000us");
  CHECK(format_time(1) == "0.001us");
  CHECK(format_time(1500) == "1.500us");
  CHECK(format_time(999'999) == "999.999us");
  CHECK(format_time(999'999.4) == "999.999us");
  CHECK(format_time(1'000'000) == "1.000ms");
  CHECK(format_time(12'345'678) == "12.346ms");
  CHECK(format_time(999'999'999) == "1000.000ms");  // torch: below 1 s stays in ms
  CHECK(format_time(1'000'000'000) == "1.000s");
  CHECK(format_time(3'600e9) == "3600.000s");
}

TEST_CASE("format_time: negative times scale by their magnitude", "[format]") {
  CHECK(format_time(-50) == "-0.050us");
  CHECK(format_time(-2'000'000) == "-2.000ms");
  CHECK(format_time(-3'000'000'000.0) == "-3.000s");
  CHECK(format_time(-50, TimeUnit::kNanoseconds) == "-50ns");
}

TEST_CASE("format_time: a forced unit", "[format]") {
  CHECK(format_time(1'500'000'000, TimeUnit::kMilliseconds) == "1500.000ms");
  CHECK(format_time(1'500, TimeUnit::kSeconds) == "0.000s");
  CHECK(format_time(1'500, TimeUnit::kMilliseconds) == "0.002ms");
  CHECK(format_time(2'500'000, TimeUnit::kMicroseconds) == "2500.000us");
  CHECK(format_time(2'500'000, TimeUnit::kNanoseconds) == "2500000ns");
  CHECK(format_time(7, TimeUnit::kNanoseconds) == "7ns");
}

TEST_CASE("parse_time_unit", "[format]") {
  CHECK(parse_time_unit("s") == TimeUnit::kSeconds);
  CHECK(parse_time_unit("ms") == TimeUnit::kMilliseconds);
  CHECK(parse_time_unit("us") == TimeUnit::kMicroseconds);
  CHECK(parse_time_unit("ns") == TimeUnit::kNanoseconds);
  CHECK_FALSE(parse_time_unit("min"));
  CHECK_FALSE(parse_time_unit(""));
}

TEST_CASE("format_time_share", "[format]") {
  CHECK(format_time_share(1, 2) == "50.00%");
  CHECK(format_time_share(1, 3) == "33.33%");
  CHECK(format_time_share(2, 3) == "66.67%");
  CHECK(format_time_share(3, 3) == "100.00%");
  CHECK(format_time_share(0, 3) == "0.00%");
  CHECK(format_time_share(0, 0) == "NaN");
  CHECK(format_time_share(5, 4) == "125.00%");  // CPU total can exceed the self sum
}

TEST_CASE("format_memory: torch's _format_memory", "[format]") {
  CHECK(format_memory(0) == "0 B");
  CHECK(format_memory(1023) == "1023 B");
  CHECK(format_memory(1024) == "1.00 KB");
  CHECK(format_memory(-1536) == "-1.50 KB");
  CHECK(format_memory(3 << 20) == "3.00 MB");
  CHECK(format_memory(int64_t{5} << 30) == "5.00 GB");
}

TEST_CASE("format_iso8601_utc", "[format]") {
  CHECK(format_iso8601_utc(0) == "1970-01-01T00:00:00.000000Z");
  CHECK(format_iso8601_utc(1714566896123456789u) == "2024-05-01T12:34:56.123456Z");
}

TEST_CASE("format_cuda_version", "[format]") {
  CHECK(format_cuda_version(13000) == "13.0");
  CHECK(format_cuda_version(12080) == "12.8");
  CHECK(format_cuda_version(11020) == "11.2");
  CHECK(format_cuda_version(0) == "none");
}

TEST_CASE("display_length and display_prefix count UTF-8 characters", "[format]") {
  CHECK(display_length("abc") == 3);
  CHECK(display_length("\xc3\xa9t\xc3\xa9") == 3);
  CHECK(display_prefix("\xc3\xa9t\xc3\xa9", 2) == "\xc3\xa9t");
  CHECK(display_prefix("abc", 5) == "abc");
  CHECK(display_prefix("abc", 0).empty());
}

}  // namespace
}  // namespace gprof::analysis
