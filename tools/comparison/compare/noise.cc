#include "tools/comparison/compare/noise.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gprof::comparison {
namespace {

constexpr double kExactPairs = 1e5;

// The number of orderings of n BASE and m NEW runs with each U = 0 .. n*m:
// the product over k = 1..n of (1 - q^(m+k)) / (1 - q^k). A coefficient
// depends only on those of lower powers, so the small ones (the tail the
// test reads) stay exact integers whatever the size of the large ones.
std::vector<double> u_counts(size_t n, size_t m) {
  std::vector<double> c(n * m + 1, 0.0);
  c[0] = 1;
  for (size_t k = 1; k <= n; ++k) {
    for (size_t u = c.size(); u-- > m + k;) c[u] -= c[u - (m + k)];
    for (size_t u = k; u < c.size(); ++u) c[u] += c[u - k];
  }
  return c;
}

double choose(size_t n, size_t k) {
  double out = 1;
  for (size_t i = 1; i <= k; ++i) out *= static_cast<double>(n - k + i) / static_cast<double>(i);
  return out;
}

}  // namespace

double mann_whitney_cdf(size_t n, size_t m, double u) {
  if (u < 0) return 0;
  const double pairs = static_cast<double>(n) * static_cast<double>(m);
  if (u >= pairs) return 1;
  if (pairs > kExactPairs) {
    const double mean = pairs / 2;
    const double sd = std::sqrt(pairs * static_cast<double>(n + m + 1) / 12);
    return 0.5 * std::erfc(-(std::floor(u) + 0.5 - mean) / (sd * std::sqrt(2.0)));
  }
  const std::vector<double> counts = u_counts(std::min(n, m), std::max(n, m));
  double below = 0;
  for (size_t i = 0; i <= static_cast<size_t>(u); ++i) below += counts[i];
  return below / choose(n + m, std::min(n, m));
}

double mann_whitney_u(const Spread& base, const Spread& now) {
  double u = 0;
  for (double b : base.values)
    for (double x : now.values) u += x <= b ? 1 : 0;
  return u;
}

NoiseTest::NoiseTest(size_t base_runs, size_t new_runs, double alpha)
    : base_runs_(base_runs), new_runs_(new_runs), alpha_(alpha) {
  if (!applies()) return;
  const size_t pairs = base_runs * new_runs;
  // The counts once, summed as u grows (mann_whitney_cdf would make them
  // again for every u: minutes for 200 runs against 200).
  const bool exact = static_cast<double>(pairs) <= kExactPairs;
  // U's distribution is the same for n against m as for m against n; the
  // product over the smaller side cancels least.
  const size_t fewer = std::min(base_runs, new_runs);
  const size_t more = std::max(base_runs, new_runs);
  const std::vector<double> counts = exact ? u_counts(fewer, more) : std::vector<double>{};
  const double orderings = choose(fewer + more, fewer);
  double below = exact ? counts[0] : 0;
  level_ = exact ? below / orderings : mann_whitney_cdf(base_runs, new_runs, 0);
  for (size_t u = 1; u < pairs; ++u) {
    below += exact ? counts[u] : 0;
    const double p =
        exact ? below / orderings : mann_whitney_cdf(base_runs, new_runs, static_cast<double>(u));
    // A level of exactly alpha passes, whatever the rounding of the sums.
    if (p > alpha_ * (1 + 1e-12)) break;
    critical_u_ = static_cast<double>(u);
    level_ = p;
  }
}

bool NoiseTest::increase_beyond(const Spread& base, const Spread& now) const {
  return !applies() || mann_whitney_u(base, now) <= critical_u_;
}

bool NoiseTest::within_noise(const Spread& base, const Spread& now) const {
  return applies() && base.median != now.median && !increase_beyond(base, now) &&
         !increase_beyond(now, base);
}

std::string NoiseTest::description() const {
  if (!applies())
    return "noise test: none (one run on each side; give each side several runs to tell "
           "changes from noise)";
  const size_t pairs = base_runs_ * new_runs_;
  std::string out = fmt::format(
      "noise test: one-sided Mann-Whitney U of {} base and {} new runs: ", base_runs_, new_runs_);
  if (critical_u_ == 0)
    out += "an increase fails only when every new run is above every base run (U = 0";
  else
    out += fmt::format(
        "an increase fails when new runs are not above base runs in at most {} "
        "of {} pairs (U <= {}",
        critical_u_, pairs, critical_u_);
  out += fmt::format(", level {:.2g}, alpha {:g})", level_, alpha_);
  if (level_ > alpha_) out += "; more runs would make the test reach alpha";
  return out;
}

}  // namespace gprof::comparison
