// CUPTI's 32-bit correlation ids unwrapped to 64 bits once a file has been
// read into sorters (call_pairing.h), without holding every id: the ids in
// the order they were handed out, each to the value nearest the one before;
// any other id of the file (a GPU record's, a launch's kept apart) to the
// value nearest that of the last id handed out before its time. Kept for
// that: a (time, id) sample every kSample ids, and whenever the ids have
// moved by kDrift or more since the last sample, so that an id between two
// samples is within kDrift of the one before it; memory grows by 16 bytes
// per 4096 calls as CUPTI counts (one id per call). Exact for any file whose
// GPU records' ids are within 2^31 - kDrift of their calls'.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace gprof::analysis {

// CUPTI's correlation ids are 32-bit: they wrap at this.
inline constexpr uint64_t kCuptiIdSpace = uint64_t{1} << 32;

// The 64-bit id nearest `reference` whose low 32 bits are `raw`'s (serial
// number arithmetic, RFC 1982); ids above 32 bits are no CUPTI ids and stay.
// Inline: report's stream asks it twice per launch (stream_ids.h).
inline uint64_t unwrap_correlation(uint64_t raw, uint64_t reference) {
  constexpr uint64_t kHalf = kCuptiIdSpace / 2;
  if (raw >= kCuptiIdSpace) return raw;
  uint64_t id = (reference & ~(kCuptiIdSpace - 1)) | raw;
  if (id > reference && id - reference > kHalf && id >= kCuptiIdSpace)
    id -= kCuptiIdSpace;
  else if (id < reference && reference - id > kHalf)
    id += kCuptiIdSpace;
  return id;
}

class CorrelationUnwrap {
 public:
  static constexpr uint64_t kSample = 4096;
  static constexpr uint64_t kDrift = uint64_t{1} << 28;

  // Whether ids spanning [lowest, highest] (as recorded) can have wrapped:
  // a wrap puts ids more than 2^31 apart (and ids above 32 bits are taken as
  // a wrap). When not, every id unwraps to itself
  // and no pass is needed.
  static bool may_wrap(uint64_t lowest, uint64_t highest);

  // The next id in the order they were handed out: its unwrapped value. A
  // pushed id (formats/correlation_ids.h) is its own value and changes
  // nothing.
  // `time_ns`: when it was handed out, if known (times need not increase;
  // finish() sorts the samples).
  uint64_t next(uint64_t raw, std::optional<uint64_t> time_ns);
  // After the last next(), before at().
  void finish();
  // Whether some id unwrapped above 2^32.
  bool wrapped() const { return wrapped_; }
  // An id seen at `time_ns`, unwrapped against the last sample at or before
  // that time (the first sample when none is).
  uint64_t at(uint64_t raw, uint64_t time_ns) const;

 private:
  std::vector<std::pair<uint64_t, uint64_t>> samples_;  // (time, unwrapped id)
  uint64_t previous_ = 0;
  uint64_t sampled_ = 0;  // the last sample's id
  uint64_t count_ = 0;
  bool sample_due_ = false;
  bool wrapped_ = false;
};

}  // namespace gprof::analysis
