#include "tools/analysis/model/correlation_unwrap.h"

#include <catch2/catch.hpp>

#include "formats/correlation_ids.h"

namespace gprof::analysis {
namespace {

constexpr uint64_t kWrap = uint64_t{1} << 32;

TEST_CASE("correlation unwrap: one id to the value nearest a reference", "[correlation_unwrap]") {
  CHECK(unwrap_correlation(3, 0xFFFFFFF0u) == kWrap + 3);
  CHECK(unwrap_correlation(0xFFFFFFF0u, kWrap + 3) == 0xFFFFFFF0u);
  CHECK(unwrap_correlation(0xFFFFFFF0u, 5) == 0xFFFFFFF0u);  // never below 0
  CHECK(unwrap_correlation(uint64_t{1} << 40, 5) == uint64_t{1} << 40);
}

TEST_CASE("correlation unwrap: whether ids can have wrapped", "[correlation_unwrap]") {
  CHECK_FALSE(CorrelationUnwrap::may_wrap(1, 1000));
  CHECK_FALSE(CorrelationUnwrap::may_wrap(UINT64_MAX, 0));  // no ids
  CHECK(CorrelationUnwrap::may_wrap(3, 0xFFFFFFF0u));       // more than 2^31 apart
  CHECK(CorrelationUnwrap::may_wrap(3, kWrap + 3));         // above 32 bits
}

// Calls in the order CUPTI handed out their ids, across 2^32, then GPU
// records timed between them: each to the value nearest that of the last
// call before it.
TEST_CASE("correlation unwrap: calls across 2^32 and GPU records timed among them",
          "[correlation_unwrap]") {
  CorrelationUnwrap unwrap;
  const uint64_t first = kWrap - 3 * CorrelationUnwrap::kSample;
  uint64_t expected = first;
  // Six samples' worth of calls, one id and 10 ns each.
  for (uint64_t i = 0; i < 6 * CorrelationUnwrap::kSample; ++i, ++expected)
    REQUIRE(unwrap.next(expected & (kWrap - 1), 10 * i) == expected);
  // A takeover's call: a pushed id is its own value and no sample.
  CHECK(unwrap.next(kPushedIdBase + 5, 0) == kPushedIdBase + 5);
  unwrap.finish();
  CHECK(unwrap.wrapped());
  // A record of the first call, long after: nearest the calls of its time.
  CHECK(unwrap.at(first, 10) == first);
  // Raw 2 started after the wrap: one wrap up; before it, raw 0xFFFFFFFF is not.
  const uint64_t after_wrap = 10 * (3 * CorrelationUnwrap::kSample + 100);
  CHECK(unwrap.at(2, after_wrap) == kWrap + 2);
  CHECK(unwrap.at(0xFFFFFFFFu, after_wrap) == 0xFFFFFFFFu);
  CHECK(unwrap.at(0xFFFFFFFFu, 0) == 0xFFFFFFFFu);
  // An id above 32 bits is no CUPTI id.
  CHECK(unwrap.at(kPushedIdBase + 5, after_wrap) == kPushedIdBase + 5);
}

TEST_CASE("correlation unwrap: ids that never wrap are their own", "[correlation_unwrap]") {
  CorrelationUnwrap unwrap;
  for (uint64_t id = 1; id < 10000; ++id) REQUIRE(unwrap.next(id, id * 5) == id);
  unwrap.finish();
  CHECK_FALSE(unwrap.wrapped());
  CHECK(unwrap.at(77, 3) == 77);
}

}  // namespace
}  // namespace gprof::analysis
