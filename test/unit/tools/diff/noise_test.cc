// The noise test: several runs per side fail a rule only when every NEW run
// is above every BASE run (one-sided Mann-Whitney U = 0).
#include <catch2/catch.hpp>

#include "tools/diff/noise.h"

namespace gprof::diff {
namespace {

TEST_CASE("noise: no test with one run on each side", "[diff][noise]") {
  const NoiseTest noise(1, 1);
  CHECK_FALSE(noise.applies());
  CHECK(noise.increase_beyond(Spread{10, 10, 10}, Spread{11, 11, 11}));
  CHECK_FALSE(noise.within_noise(Spread{10, 10, 10}, Spread{11, 11, 11}));
  CHECK(noise.description() ==
        "noise test: none (one run on each side; give each side several runs to tell changes "
        "from noise)");
}

TEST_CASE("noise: 3 against 3 runs is p = 0.05", "[diff][noise]") {
  const NoiseTest noise(3, 3);
  CHECK(noise.applies());
  CHECK(noise.p_value() == Approx(0.05));
  CHECK(noise.description() ==
        "noise test: ranges of 3 base and 3 new runs must not overlap (one-sided Mann-Whitney "
        "U = 0, p = 0.05)");
  CHECK(NoiseTest(1, 3).p_value() == Approx(0.25));
  CHECK(NoiseTest(5, 5).p_value() == Approx(1.0 / 252));
  CHECK(NoiseTest(1, 2).applies());
  CHECK(NoiseTest(2, 1).applies());
}

TEST_CASE("noise: overlapping ranges are noise, separate ones are not", "[diff][noise]") {
  const NoiseTest noise(3, 3);
  // base 19, 19, 22 us; new 19, 22, 22 us: medians 19 -> 22, ranges overlap.
  const Spread base{19000, 19000, 22000};
  const Spread overlapping{22000, 19000, 22000};
  CHECK_FALSE(noise.increase_beyond(base, overlapping));
  CHECK(noise.within_noise(base, overlapping));
  // Touching ranges overlap too: U = 0 needs every NEW run strictly above.
  CHECK_FALSE(noise.increase_beyond(base, Spread{23000, 22000, 24000}));
  const Spread above{25000, 23000, 26000};
  CHECK(noise.increase_beyond(base, above));
  CHECK_FALSE(noise.within_noise(base, above));
  // Equal medians are no change at all.
  CHECK_FALSE(noise.within_noise(base, Spread{19000, 18000, 30000}));
}

}  // namespace
}  // namespace gprof::diff
