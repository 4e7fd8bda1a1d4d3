// Times in microseconds with nanosecond precision, strings escaped.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

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

}  // namespace
}  // namespace gprof::trace
