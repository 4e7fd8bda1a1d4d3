// CUPTI ids unwrapped as a file streams (stream_ids.h): the true values
// with one shift for the whole file, whatever order the calls are read in.
#include "tools/analysis/model/stream_ids.h"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "formats/correlation_ids.h"

namespace gprof::analysis {
namespace {

constexpr uint64_t kWrap = uint64_t{1} << 32;

TEST_CASE("calls across a wrap, a GPU record on either side of it") {
  StreamIds ids;
  CHECK(ids.call(4294967290u) == kWrap + 4294967290u);
  CHECK(ids.call(3) == 2 * kWrap + 3);
  CHECK(ids.other(4294967291u) == kWrap + 4294967291u);  // its call came before the wrap
  CHECK(ids.other(3) == 2 * kWrap + 3);
  CHECK(ids.other(0) == 0);
  CHECK(ids.call(kPushedIdBase + 5) == kPushedIdBase + 5);  // pushed ids stay
  CHECK(ids.other(kPushedIdBase + 5) == kPushedIdBase + 5);
  CHECK(ids.call(4) == 2 * kWrap + 4);  // the reference is the last CUPTI id
}

TEST_CASE("a call that started before the first one read takes the wrap below") {
  StreamIds ids;
  CHECK(ids.call(2) == kWrap + 2);  // read first, made just after the wrap
  CHECK(ids.call(4294967295u) == 4294967295u);
  CHECK(ids.other(2) == kWrap + 2);
}

TEST_CASE("in any nearby order, one shift from the true values for every id") {
  std::mt19937_64 rng(7);
  // Ids handed out in order over three wraps, read shuffled within windows of 1000 (about
  // 700M ids: the first window already straddles a wrap).
  std::vector<uint64_t> truth;
  for (uint64_t id = kWrap - 5000; id < 4 * kWrap; id += 1 + rng() % (kWrap / 3000))
    truth.push_back(id);
  for (size_t i = 0; i + 1000 < truth.size(); i += 1000)
    std::shuffle(truth.begin() + i, truth.begin() + i + 1000, rng);
  StreamIds ids;
  const uint64_t shift = ids.call(truth[0] % kWrap) - truth[0];
  CHECK((shift == 0 || shift == kWrap));
  for (uint64_t id : truth) {
    REQUIRE(ids.call(id % kWrap) == id + shift);
    REQUIRE(ids.other((id + 100) % kWrap) == id + 100 + shift);
  }
}

}  // namespace
}  // namespace gprof::analysis
