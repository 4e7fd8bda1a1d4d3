// CUPTI's 32-bit correlation ids unwrapped as a file streams, where
// CallPairing (call_pairing.h) unwraps them once the whole file is read:
// each id to the 64-bit value nearest the last one handed out that was read
// (a call's, or during a takeover an external correlation's: both come in
// the order CUPTI handed them out, where GPU records may lag). Any
// reference less than half the id space (2^31 calls) away gives the value
// call_pairing.h gives, so the order in which a stream reads them does not
// matter. The first id read is put one wrap up from its raw value, so that
// ids handed out before it but read after it can take the wrap below: the values are the true ids
// plus one shift (0 or 2^32) for the whole file, the same for calls, GPU records and mappings,
// which is all pairing needs. Pushed ids (formats/correlation_ids.h) are no CUPTI ids and stay.
#pragma once

#include <cstdint>

#include "formats/correlation_ids.h"
#include "tools/analysis/model/correlation_unwrap.h"

namespace gprof::analysis {

class StreamIds {
 public:
  // A call's id, or an external correlation's CUPTI id; it is the
  // reference from now on.
  uint64_t call(uint64_t raw) {
    if (raw == 0 || is_pushed_id(raw)) return raw;
    const uint64_t id = unwrap(raw);
    reference_ = id;
    return id;
  }
  // A GPU record's id.
  uint64_t other(uint64_t raw) {
    if (raw == 0 || is_pushed_id(raw)) return raw;
    return unwrap(raw);
  }
  // Whether an id came a quarter of the id space or more from the last
  // call's (2^30 calls: never at CUPTI's one id a call, but the fake's
  // GPROF_FAKE_CORRELATION_STEP makes them): call_pairing.h's reference, the
  // last id handed out before a GPU record started, could then be another
  // wrap's, and the stream cannot tell.
  bool ambiguous() const { return ambiguous_; }

 private:
  uint64_t unwrap(uint64_t raw) {
    if (!started_) {
      started_ = true;
      reference_ = raw + kWrap;
    }
    const uint64_t id = unwrap_correlation(raw, reference_);
    const uint64_t distance = id > reference_ ? id - reference_ : reference_ - id;
    if (distance >= kWrap / 4) ambiguous_ = true;
    return id;
  }
  static constexpr uint64_t kWrap = kCuptiIdSpace;
  uint64_t reference_ = 0;
  bool started_ = false;
  bool ambiguous_ = false;
};

}  // namespace gprof::analysis
