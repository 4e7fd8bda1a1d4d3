#include "tools/analysis/pairing.h"

#include <catch2/catch.hpp>

#include "test/unit/formats/sidecar_builder.h"

namespace gprof::analysis {
namespace {

ApiRecord call(uint64_t correlation, uint64_t start) {
  ApiRecord r = test::make_call(ApiId::cudaLaunchKernel, start, 10);
  r.correlation = correlation;
  return r;
}

TEST_CASE("pairing: by correlation id, in any order", "[pairing]") {
  CallPairing pairing;
  pairing.add_call(call(30, 300));
  pairing.add_call(call(10, 100));
  pairing.add_call(call(0, 50));  // no correlation: never pairs
  pairing.seal();
  REQUIRE(pairing.find(10));
  CHECK(pairing.find(10)->start_ns == 100);
  CHECK(pairing.find(30)->start_ns == 300);
  CHECK_FALSE(pairing.find(20));
  CHECK_FALSE(pairing.find(0));
}

TEST_CASE("pairing: through external correlations", "[pairing]") {
  CallPairing pairing;
  pairing.add_call(call(1001, 100));  // the ids gprof pushed
  pairing.add_call(call(1002, 200));
  pairing.add_call(call(7, 700));
  pairing.add_external(7, 1001);  // CUPTI id -> pushed id
  pairing.add_external(8, 1002);
  pairing.seal();
  CHECK(pairing.external_count() == 2);
  // A mapping wins over a call that happens to carry the CUPTI id itself.
  CHECK(pairing.find(7)->start_ns == 100);
  CHECK(pairing.find(8)->start_ns == 200);
  // Without a mapping, the id itself.
  CHECK(pairing.find(1002)->start_ns == 200);
  CHECK_FALSE(pairing.find(9));
}

TEST_CASE("pairing: a mapping to no call falls back to the id itself", "[pairing]") {
  CallPairing pairing;
  pairing.add_call(call(5, 500));
  pairing.add_external(5, 99);
  pairing.seal();
  CHECK(pairing.find(5)->start_ns == 500);
}

TEST_CASE("pairing: of two calls with one correlation, the first wins", "[pairing]") {
  CallPairing pairing;
  pairing.add_call(call(4, 100));
  pairing.add_call(call(4, 200));
  pairing.seal();
  CHECK(pairing.find(4)->start_ns == 100);
}

}  // namespace
}  // namespace gprof::analysis
