// The noise test: several runs per side fail a rule only when the one-sided
// Mann-Whitney U test puts NEW above BASE at level alpha.
#include <catch2/catch.hpp>

#include <vector>

#include "tools/comparison/compare/noise.h"

namespace gprof::comparison {
namespace {

TEST_CASE("noise: no test with one run on each side", "[diff][noise]") {
  const NoiseTest noise(1, 1);
  CHECK_FALSE(noise.applies());
  CHECK(noise.increase_beyond(spread_of({10}), spread_of({11})));
  CHECK_FALSE(noise.within_noise(spread_of({10}), spread_of({11})));
  CHECK(noise.description() ==
        "noise test: none (one run on each side; give each side several runs to tell changes "
        "from noise)");
}

TEST_CASE("noise: U's exact distribution", "[diff][noise]") {
  // 3 against 3: 20 orderings, one with U = 0, one with U = 1, two with U = 2.
  CHECK(mann_whitney_cdf(3, 3, 0) == Approx(1.0 / 20));
  CHECK(mann_whitney_cdf(3, 3, 1) == Approx(2.0 / 20));
  CHECK(mann_whitney_cdf(3, 3, 2) == Approx(4.0 / 20));
  CHECK(mann_whitney_cdf(3, 3, 9) == 1);
  CHECK(mann_whitney_cdf(5, 5, 0) == Approx(1.0 / 252));
  // Symmetric: P(U <= u) = P(U >= nm - u).
  CHECK(mann_whitney_cdf(4, 6, 7) == Approx(1 - mann_whitney_cdf(4, 6, 24 - 7 - 1)));
  // 10 against 10 (published tables: one-sided 0.05 at U <= 27).
  CHECK(mann_whitney_cdf(10, 10, 27) <= 0.05);
  CHECK(mann_whitney_cdf(10, 10, 28) > 0.05);
  // The normal approximation beyond 10^5 pairs lands near the centre.
  CHECK(mann_whitney_cdf(400, 400, 80000) == Approx(0.5).margin(0.01));
}

TEST_CASE("noise: U counts the pairs where NEW is not above BASE", "[diff][noise]") {
  CHECK(mann_whitney_u(spread_of({1, 2, 3}), spread_of({4, 5, 6})) == 0);
  // A tie counts whole: against the increase.
  CHECK(mann_whitney_u(spread_of({1, 2, 3}), spread_of({3, 5, 6})) == 1);
  CHECK(mann_whitney_u(spread_of({4, 5, 6}), spread_of({1, 2, 3})) == 9);
}

TEST_CASE("noise: 3 against 3 runs needs every NEW run above every BASE run", "[diff][noise]") {
  const NoiseTest noise(3, 3);
  CHECK(noise.applies());
  CHECK(noise.critical_u() == 0);
  CHECK(noise.p_value() == Approx(0.05));
  CHECK(noise.description() ==
        "noise test: one-sided Mann-Whitney U of 3 base and 3 new runs: an increase fails only "
        "when every new run is above every base run (U = 0, level 0.05, alpha 0.05)");
  // base 19, 19, 22 us; new 19, 22, 22 us: medians 19 -> 22, but the runs mix.
  const Spread base = spread_of({19000, 19000, 22000});
  const Spread mixed = spread_of({19000, 22000, 22000});
  CHECK_FALSE(noise.increase_beyond(base, mixed));
  CHECK(noise.within_noise(base, mixed));
  // A tie is not above.
  CHECK_FALSE(noise.increase_beyond(base, spread_of({22000, 23000, 24000})));
  const Spread above = spread_of({23000, 25000, 26000});
  CHECK(noise.increase_beyond(base, above));
  CHECK_FALSE(noise.within_noise(base, above));
  // Equal medians are no change at all.
  CHECK_FALSE(noise.within_noise(base, spread_of({18000, 19000, 30000})));
}

TEST_CASE("noise: with few runs the level is said as it is", "[diff][noise]") {
  const NoiseTest two(2, 2);
  CHECK(two.critical_u() == 0);
  CHECK(two.p_value() == Approx(1.0 / 6));
  CHECK(two.description().find("U = 0, level 0.17, alpha 0.05); more runs would make the test "
                               "reach alpha") != std::string::npos);
  CHECK(NoiseTest(1, 3).p_value() == Approx(0.25));
  CHECK(NoiseTest(1, 2).applies());
  CHECK(NoiseTest(2, 1).applies());
}

TEST_CASE("noise: one slow BASE run among ten does not hide a regression", "[diff][noise]") {
  const NoiseTest noise(10, 10);
  CHECK(noise.critical_u() == 27);
  CHECK(noise.p_value() <= 0.05);
  CHECK(noise.description().find("in at most 27 of 100 pairs (U <= 27") != std::string::npos);
  const Spread base = spread_of({20, 20, 20, 20, 20, 20, 20, 20, 20, 40});
  const Spread slower = spread_of({30, 30, 30, 30, 30, 30, 30, 30, 30, 30});
  CHECK(mann_whitney_u(base, slower) == 10);
  CHECK(noise.increase_beyond(base, slower));
  // Interleaved runs are noise.
  const Spread a = spread_of({1, 3, 5, 7, 9, 11, 13, 15, 17, 19});
  const Spread b = spread_of({2, 4, 6, 8, 10, 12, 14, 16, 18, 20});
  CHECK_FALSE(noise.increase_beyond(a, b));
  CHECK(noise.within_noise(a, b));
  // A stricter alpha needs a clearer separation.
  CHECK(NoiseTest(10, 10, 0.01).critical_u() < 27);
  // Many runs: the exact test up to 10^5 pairs, the normal approximation beyond; both land
  // just under alpha.
  const NoiseTest many(200, 200);
  CHECK(many.critical_u() == 18097);
  CHECK(many.p_value() <= 0.05);
  CHECK(many.p_value() > 0.049);
  CHECK(NoiseTest(400, 400).critical_u() == 74624);
  // Either side may have more runs: the same test, and a level of exactly alpha passes
  // (P(U <= 3) = 6/120 for 2 runs against 14).
  CHECK(NoiseTest(14, 2).critical_u() == 3);
  CHECK(NoiseTest(2, 14).critical_u() == 3);
  CHECK(NoiseTest(22, 3, 0.01).critical_u() == NoiseTest(3, 22, 0.01).critical_u());
  CHECK(NoiseTest(1000, 100, 0.5).critical_u() == NoiseTest(100, 1000, 0.5).critical_u());
}

}  // namespace
}  // namespace gprof::comparison
