// %t in output names, formatted without libc's time conversion (which takes
// a lock a fork child can inherit held).
#include "collector/output/start_time.h"

#include <catch2/catch.hpp>

#include <string>

namespace gprof {
namespace {

std::string compact(int64_t epoch_seconds, int64_t offset_s) {
  char out[32];
  format_compact_time(epoch_seconds, offset_s, out, sizeof out);
  return out;
}

TEST_CASE("start time: civil dates from epoch seconds, as strftime gives them") {
  CHECK(compact(0, 0) == "19700101T000000");
  CHECK(compact(1795395853, 0) == "20261123T010413");
  CHECK(compact(951782400, 0) == "20000229T000000");  // a leap day of a century year
  CHECK(compact(-1, 0) == "19691231T235959");
  CHECK(compact(4102444800, 0) == "21000101T000000");
  CHECK(compact(1795395853, 19800) == "20261123T063413");  // UTC+05:30
  CHECK(compact(0, -3600) == "19691231T230000");
}

}  // namespace
}  // namespace gprof
