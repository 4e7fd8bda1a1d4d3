// Pairs a file's GPU records with the API calls that issued them
// (docs/architecture.md §5.3). An API record's correlation is the CUPTI correlation id of
// the call (CuptiStatus SUBSCRIBED) or the external id gprof pushed
// (EXTERNAL_CORRELATION); a GPU record carries the CUPTI correlation id.
//   - SUBSCRIBED: a GPU record pairs with the call whose correlation equals
//     its own (mapped through external correlations, should a file have any).
//   - EXTERNAL_CORRELATION, pushed ids above CUPTI's (formats/
//     correlation_ids.h): as SUBSCRIBED. The calls made before gprof gave
//     its subscriber up carry CUPTI's ids, those after it pushed ids, and
//     no id is of both kinds, so a GPU record pairs through its external
//     correlation, else by its own id with a call from before the takeover,
//     else (a library's driver launch gprof did not see) with none.
//   - EXTERNAL_CORRELATION, pushed ids from 1 (files of gprof before that):
//     only through the external correlations. Both kinds of id were small
//     counters, so a GPU record that CUPTI correlated with a call gprof did
//     not see would otherwise pair with an unrelated call that pushed an
//     equal id; the calls from before the takeover stay unpaired.
// CUPTI's ids are 32-bit and wrap in a long run (2^32 calls: about an hour
// at a million calls a second). They are unwrapped to 64 bits: the calls'
// (or, in external mode, the external correlations') in the order the ids
// were handed out, each to the value nearest the one before; a GPU record's
// to the value nearest that of the last call that started before it did.
// Ids are per process, hence per file.
//
// Records arrive in any order (API calls, GPU records and the mapping are
// written by different threads), so lookups wait for seal(). Memory: 32
// bytes per call with a correlation, 16 per external correlation, and after
// a wrap 16 more per call.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "formats/api_ids.h"
#include "formats/record.h"

namespace gprof::analysis {

// The parts of an API call that its GPU work is reported with.
struct CallRef {
  uint64_t correlation;  // as recorded (unwrapped once sealed)
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t index;  // the call's position among the file's API calls (ApiCall::index)
  ApiId api;
};

enum class PairingMode {
  kCorrelation,   // CuptiStatus SUBSCRIBED (and files without a status)
  kExternalOnly,  // CuptiStatus EXTERNAL_CORRELATION
};

class CallPairing {
 public:
  // Calls with correlation 0 never pair and are not kept. `index`: the
  // call's position in the file, handed back in CallRef::index.
  void add_call(const ApiRecord& record, uint32_t index = 0);
  void add_external(uint64_t correlation, uint64_t external_id);
  // Call once all of the file's records are in, before find().
  void seal(PairingMode mode = PairingMode::kCorrelation);
  // The call that issued a GPU record with `correlation` that started at
  // `gpu_start_ns`; nullptr when none did. When two calls share a
  // correlation, the one that started first wins.
  const CallRef* find(uint64_t correlation, uint64_t gpu_start_ns = 0) const;

  size_t external_count() const { return external_.size(); }
  // Whether every pushed id is above CUPTI's (kPushedIdBase), so that a file
  // in EXTERNAL_CORRELATION state can be paired by both kinds of id.
  bool pushed_ids_apart() const { return !small_pushed_ids_; }
  // Whether the file's CUPTI ids wrapped around 2^32.
  bool wrapped() const { return !timeline_.empty(); }

 private:
  const CallRef* find_call(uint64_t correlation) const;
  uint64_t unwrap_at(uint64_t correlation, uint64_t time_ns) const;
  void seal_calls();
  void seal_externals();

  PairingMode mode_ = PairingMode::kCorrelation;
  std::vector<CallRef> calls_;
  std::vector<std::pair<uint64_t, uint64_t>> external_;  // CUPTI id -> pushed id
  // After a wrap: (time, unwrapped CUPTI id) in time order, what a GPU
  // record's id is unwrapped against.
  std::vector<std::pair<uint64_t, uint64_t>> timeline_;
  bool small_pushed_ids_ = false;  // an external correlation pushed an id below kPushedIdBase
};

// The 64-bit id nearest `reference` whose low 32 bits are `raw`'s (serial
// number arithmetic, RFC 1982); ids above 32 bits are no CUPTI ids and stay.
uint64_t unwrap_correlation(uint64_t raw, uint64_t reference);

}  // namespace gprof::analysis
