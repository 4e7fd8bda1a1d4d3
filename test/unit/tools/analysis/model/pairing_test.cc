#include "tools/analysis/model/pairing.h"

#include <catch2/catch.hpp>

#include "formats/correlation_ids.h"
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

TEST_CASE("pairing: external mode pairs only through external correlations", "[pairing]") {
  // gprof pushed 1 and 2 around the two calls it saw; CUPTI numbered those
  // calls 5 and 6 and a library's driver launch, which gprof never saw, 2.
  CallPairing pairing;
  pairing.add_call(call(1, 100));
  pairing.add_call(call(2, 200));
  pairing.add_external(5, 1);
  pairing.add_external(6, 2);
  pairing.seal(PairingMode::kExternalOnly);
  CHECK(pairing.find(5)->start_ns == 100);
  CHECK(pairing.find(6)->start_ns == 200);
  // The library's kernel carries CUPTI id 2: not the call that pushed 2.
  CHECK_FALSE(pairing.find(2));
  CHECK_FALSE(pairing.find(1));
  // A mapping to a call the file does not hold pairs with nothing.
  CallPairing lost;
  lost.add_call(call(7, 100));
  lost.add_external(7, 99);
  lost.seal(PairingMode::kExternalOnly);
  CHECK_FALSE(lost.find(7));
}

TEST_CASE("pairing: a takeover's pushed ids above CUPTI's pair beside the calls before it",
          "[pairing]") {
  // Before the yield gprof recorded CUPTI's ids 4 and 9; after it, it pushed
  // kPushedIdBase + 1 and + 2 around its calls, which CUPTI numbered 14 and
  // 19; a library's driver launch after the yield is CUPTI's 16, and a call
  // with CUPTI id 20 wraps nothing.
  constexpr uint64_t kBase = kPushedIdBase;
  CallPairing pairing;
  pairing.add_call(call(4, 100));
  pairing.add_call(call(9, 200));
  pairing.add_call(call(kBase + 1, 300));
  pairing.add_call(call(kBase + 2, 400));
  pairing.add_external(14, kBase + 1);
  pairing.add_external(19, kBase + 2);
  CHECK(pairing.pushed_ids_apart());
  pairing.seal(PairingMode::kCorrelation);  // what profile.cc chooses for such a file
  CHECK(pairing.find(4)->start_ns == 100);
  CHECK(pairing.find(9)->start_ns == 200);
  CHECK(pairing.find(14)->start_ns == 300);
  CHECK(pairing.find(19)->start_ns == 400);
  CHECK_FALSE(pairing.find(16));
  CHECK_FALSE(pairing.wrapped());  // the pushed ids are no wrap
  // A file from before: pushed ids from 1 are not apart from CUPTI's.
  CallPairing old;
  old.add_call(call(1, 100));
  old.add_external(5, 1);
  CHECK_FALSE(old.pushed_ids_apart());
}

TEST_CASE("pairing: 32-bit CUPTI ids that wrap are unwrapped", "[pairing]") {
  CHECK(unwrap_correlation(3, 0xFFFFFFF0u) == (uint64_t{1} << 32) + 3);
  CHECK(unwrap_correlation(0xFFFFFFF0u, (uint64_t{1} << 32) + 3) == 0xFFFFFFF0u);
  CHECK(unwrap_correlation(0xFFFFFFF0u, 5) == 0xFFFFFFF0u);  // never below 0
  CHECK(unwrap_correlation(uint64_t{1} << 40, 5) == uint64_t{1} << 40);

  // Calls 2^30 ids apart, so that the fifth, at t=500, has id 1 again.
  constexpr uint64_t kStep = uint64_t{1} << 30;
  CallPairing pairing;
  for (uint64_t i = 0; i < 6; ++i)
    pairing.add_call(call((1 + i * kStep) & 0xFFFFFFFFu, 100 * (i + 1)));
  pairing.seal();
  CHECK(pairing.wrapped());
  // GPU work of id 1 that ran right after the first call is the first's...
  CHECK(pairing.find(1, 150)->start_ns == 100);
  // ...and after the fifth call, the fifth's (the first match used to win).
  CHECK(pairing.find(1, 550)->start_ns == 500);
  CHECK(pairing.find(1 + kStep, 650)->start_ns == 600);
  CHECK(pairing.find(1 + 3 * kStep, 450)->start_ns == 400);
}

TEST_CASE("pairing: a takeover after the calls' ids wrapped maps in the wrap they reached",
          "[pairing]") {
  // CUPTI ids 0xFFFFFFF0 and 0xFFFFFFFA, then 4 (wrapped) before the yield; after it, the
  // pushed ids' calls, which CUPTI numbered 9 and 14. Found: the first mapping was taken as
  // its own reference, below the calls' wrap, and every GPU record from the takeover on
  // (unwrapped to 2^32 + 9) missed it (gpuprof-gen --first-correlation 4294967000
  // --takeover 2:4: 57214 of 58166 unpaired).
  constexpr uint64_t kBase = kPushedIdBase;
  CallPairing pairing;
  pairing.add_call(call(0xFFFFFFF0u, 100));
  pairing.add_call(call(0xFFFFFFFAu, 200));
  pairing.add_call(call(4, 300));
  pairing.add_call(call(kBase + 1, 400));
  pairing.add_call(call(kBase + 2, 500));
  pairing.add_external(9, kBase + 1);
  pairing.add_external(14, kBase + 2);
  pairing.seal(PairingMode::kCorrelation);
  CHECK(pairing.wrapped());
  CHECK(pairing.find(0xFFFFFFFAu, 250)->start_ns == 200);
  CHECK(pairing.find(4, 350)->start_ns == 300);
  CHECK(pairing.find(9, 450)->start_ns == 400);
  CHECK(pairing.find(14, 550)->start_ns == 500);
}

TEST_CASE("pairing: external mode unwraps CUPTI ids in push order", "[pairing]") {
  constexpr uint64_t kStep = uint64_t{1} << 30;
  CallPairing pairing;
  for (uint64_t i = 0; i < 6; ++i) {
    pairing.add_call(call(i + 1, 100 * (i + 1)));                // pushed ids never wrap
    pairing.add_external((7 + i * kStep) & 0xFFFFFFFFu, i + 1);  // CUPTI's do
  }
  pairing.seal(PairingMode::kExternalOnly);
  CHECK(pairing.wrapped());
  CHECK(pairing.find(7, 120)->start_ns == 100);
  CHECK(pairing.find(7, 520)->start_ns == 500);
}

}  // namespace
}  // namespace gprof::analysis
