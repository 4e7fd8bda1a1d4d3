// Times in microseconds with nanosecond precision, strings escaped.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "tools/trace/json_cursor.h"
#include "tools/trace/json_text.h"

namespace gprof::trace {
namespace {

std::string us(int64_t ns) {
  Buffer b;
  append_microseconds(b, ns);
  return fmt::to_string(b);
}

std::string quoted(std::string_view text) {
  Buffer b;
  append_json_string(b, text);
  return fmt::to_string(b);
}

TEST_CASE("nanoseconds are written as microseconds with three decimals", "[trace]") {
  CHECK(us(0) == "0.000");
  CHECK(us(1) == "0.001");
  CHECK(us(999) == "0.999");
  CHECK(us(1000) == "1.000");
  CHECK(us(20000) == "20.000");
  CHECK(us(1234567) == "1234.567");
  // Beyond what a double holds exactly: no rounding.
  CHECK(us(9007199254740993) == "9007199254740.993");
  CHECK(us(-5) == "-0.005");
  CHECK(us(-1500) == "-1.500");
  CHECK(us(INT64_MIN) == "-9223372036854775.808");
}

TEST_CASE("strings are JSON-escaped", "[trace]") {
  CHECK(quoted("square(float*, int)") == "\"square(float*, int)\"");
  CHECK(quoted("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(quoted("line\nnext\ttab\x01") == "\"line\\nnext\\ttab\\u0001\"");
  CHECK(quoted("") == "\"\"");
  CHECK(quoted("caf\xc3\xa9") == "\"caf\xc3\xa9\"");  // UTF-8 as it is
}

// The hot loop's writer (json_cursor.h) spells numbers as fmt and
// append_microseconds do.
TEST_CASE("the JSON cursor writes numbers as fmt does", "[trace]") {
  const auto written = [](auto&& write) {
    Buffer b;
    b.append(std::string_view("x"));
    {
      JsonCursor c(b, JsonCursor::kFixed);
      write(c);
    }
    return fmt::to_string(b);
  };
  for (const uint64_t v : {uint64_t{0}, uint64_t{7}, uint64_t{10}, uint64_t{99}, uint64_t{100},
                           uint64_t{12345}, uint64_t{4294967296}, UINT64_MAX}) {
    CHECK(written([&](JsonCursor& c) { c.number(v); }) == fmt::format("x{}", v));
    CHECK(written([&](JsonCursor& c) { c.hex(v); }) == fmt::format("x{:x}", v));
  }
  // Each length of number (the cursor counts digits before writing them).
  uint64_t power = 1;
  for (int digits = 1; digits <= 20; ++digits) {
    for (const uint64_t v : {power - 1, power, power + 1, power * 9})
      CHECK(written([&](JsonCursor& c) { c.number(v); }) == fmt::format("x{}", v));
    if (digits < 20) power *= 10;
  }
  for (const int64_t v : {int64_t{0}, int64_t{-1}, int64_t{-100}, INT64_MIN, INT64_MAX})
    CHECK(written([&](JsonCursor& c) { c.number(v); }) == fmt::format("x{}", v));
  for (const int64_t ns : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1000}, int64_t{1234567},
                           int64_t{-5}, int64_t{-1500}, INT64_MIN, INT64_MAX})
    CHECK(written([&](JsonCursor& c) { c.microseconds(ns); }) == "x" + us(ns));
  CHECK(written([](JsonCursor& c) {
          c.text("ab");
          c.put('c');
        }) == "xabc");
}

}  // namespace
}  // namespace gprof::trace
