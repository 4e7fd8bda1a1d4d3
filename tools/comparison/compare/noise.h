// Telling a change from run-to-run noise when a side has several runs: the
// one-sided Mann-Whitney U test. U counts the (BASE run, NEW run) pairs in
// which the NEW run is not above the BASE run (a tie counts whole); an
// increase is beyond the noise when U is at most the critical value, the
// largest u with P(U <= u) <= alpha when nothing changed, from U's exact
// distribution. The test assumes nothing about the shape of the noise, and
// one slow run among many does not hide a regression, as it would if every
// NEW run had to be above every BASE run. With too few runs for alpha
// (3 against 3 reach 0.05 only at U = 0, 2 against 2 never do), the test
// is U = 0 and its level is said as it is.
#pragma once

#include <cstddef>
#include <string>

#include "tools/comparison/compare/spread.h"

namespace gprof::comparison {

inline constexpr double kDefaultAlpha = 0.05;

// P(U <= u) for n and m runs when nothing changed: exact (the coefficients
// of the Gaussian binomial [n + m choose n]) up to 10^5 pairs, the normal
// approximation above.
double mann_whitney_cdf(size_t n, size_t m, double u);

// U of NEW against BASE: pairs in which the NEW run is not above the BASE
// run. A tie counts whole, against the increase: U is then never below the
// U of the ties broken at random, whose distribution is the untied one, so
// the level stays at most alpha whatever the ties (with the usual half, 6
// runs against 6 with ties reach up to 0.062 at alpha 0.05).
double mann_whitney_u(const Spread& base, const Spread& now);

class NoiseTest {
 public:
  NoiseTest(size_t base_runs, size_t new_runs, double alpha = kDefaultAlpha);

  // Whether there is a test: some side has two runs or more.
  bool applies() const { return base_runs_ >= 2 || new_runs_ >= 2; }

  // Whether an increase is beyond the noise: U at most the critical value.
  // Always true when the test does not apply.
  bool increase_beyond(const Spread& base, const Spread& now) const;

  // Whether the medians differ but neither an increase nor a decrease is
  // beyond the noise.
  bool within_noise(const Spread& base, const Spread& now) const;

  // The largest U that still fails, and the chance that it is reached when
  // nothing changed (the test's level: at most alpha when the runs allow).
  double critical_u() const { return critical_u_; }
  double p_value() const { return level_; }
  double alpha() const { return alpha_; }

  // One line for every output: "noise test: one-sided Mann-Whitney U of 10
  // base and 10 new runs: an increase fails when U <= 27 of 100 pairs
  // (level 0.045, alpha 0.05)", or why there is none.
  std::string description() const;

  size_t base_runs() const { return base_runs_; }
  size_t new_runs() const { return new_runs_; }

 private:
  size_t base_runs_;
  size_t new_runs_;
  double alpha_;
  double critical_u_ = 0;
  double level_ = 1;
};

}  // namespace gprof::comparison
