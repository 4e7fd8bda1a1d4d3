// The calls in scope a streamed read marks for the next (call_scope.h): each
// index it was given, none it was not, past the end included.
#include "tools/analysis/model/call_scope.h"

#include <catch2/catch.hpp>

namespace gprof::analysis {
namespace {

TEST_CASE("a call set holds the indexes it was given, across words and gaps") {
  CallSet set;
  CHECK(set.filters());
  CHECK_FALSE(set.contains(0));
  for (uint32_t index : {0u, 63u, 64u, 1000u, 1000000u}) set.add(index);
  for (uint32_t index : {0u, 63u, 64u, 1000u, 1000000u}) CHECK(set.contains(index));
  for (uint32_t index : {1u, 62u, 65u, 999u, 999999u, 1000001u, 4294967295u})
    CHECK_FALSE(set.contains(index));
}

TEST_CASE("work without a call is out of a call set's scope; without a scope, everything is in") {
  CallSet set;
  set.add(2);
  CallRef in{}, out{};
  in.index = 2;
  out.index = 3;
  CHECK(in_scope(&set, &in));
  CHECK_FALSE(in_scope(&set, &out));
  CHECK_FALSE(in_scope(&set, nullptr));
  CHECK(in_scope(nullptr, nullptr));
}

}  // namespace
}  // namespace gprof::analysis
