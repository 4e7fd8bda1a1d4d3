#include "tools/analysis/model/correlation_unwrap.h"

#include <algorithm>

#include "formats/correlation_ids.h"

namespace gprof::analysis {
bool CorrelationUnwrap::may_wrap(uint64_t lowest, uint64_t highest) {
  return highest >= kCuptiIdSpace || (highest > lowest && highest - lowest > kCuptiIdSpace / 2);
}

uint64_t CorrelationUnwrap::next(uint64_t raw, std::optional<uint64_t> time_ns) {
  // A call of a takeover carries an id gprof pushed: no CUPTI id, no sample.
  if (is_pushed_id(raw)) return raw;
  const uint64_t id = unwrap_correlation(raw, count_ == 0 ? raw : previous_);
  const uint64_t drift = id > sampled_ ? id - sampled_ : sampled_ - id;
  if (count_++ % kSample == 0 || drift >= kDrift) sample_due_ = true;
  // An id without a time (a pushed id whose call is not in the file) is no
  // sample: the next timed one is.
  if (sample_due_ && time_ns) {
    samples_.emplace_back(*time_ns, id);
    sampled_ = id;
    sample_due_ = false;
  }
  previous_ = id;
  wrapped_ = wrapped_ || id >= kCuptiIdSpace;
  return id;
}

void CorrelationUnwrap::finish() {
  std::stable_sort(samples_.begin(), samples_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

uint64_t CorrelationUnwrap::at(uint64_t raw, uint64_t time_ns) const {
  if (samples_.empty()) return raw;
  auto it = std::upper_bound(samples_.begin(), samples_.end(), time_ns,
                             [](uint64_t t, const auto& sample) { return t < sample.first; });
  return unwrap_correlation(raw, it == samples_.begin() ? it->second : (it - 1)->second);
}

}  // namespace gprof::analysis
