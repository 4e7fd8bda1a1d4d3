// Pairs a file's GPU records with the API calls that issued them
// (DESIGN.md §3). An API record's correlation is the CUPTI correlation id of
// the call (CuptiStatus SUBSCRIBED) or the external id gprof pushed
// (EXTERNAL_CORRELATION); a GPU record carries the CUPTI correlation id. So a
// GPU record pairs with the call whose correlation equals its correlation
// mapped through the file's external correlations, or else its correlation
// itself. Ids are per process, hence per file.
//
// Records arrive in any order (API calls, GPU records and the mapping are
// written by different threads), so lookups wait for seal(). Memory: 32
// bytes per call with a correlation, 16 per external correlation.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "formats/api_ids.h"
#include "formats/record.h"

namespace gprof::analysis {

// The parts of an API call that its GPU work is reported with.
struct CallRef {
  uint64_t correlation;
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t index;  // the call's position among the file's API calls (ApiCall::index)
  ApiId api;
};

class CallPairing {
 public:
  // Calls with correlation 0 never pair and are not kept. `index`: the
  // call's position in the file, handed back in CallRef::index.
  void add_call(const ApiRecord& record, uint32_t index = 0);
  void add_external(uint64_t correlation, uint64_t external_id);
  // Call once all of the file's records are in, before find().
  void seal();
  // The call that issued a GPU record with `correlation`; nullptr when none
  // did. When two calls share a correlation, the first added wins.
  const CallRef* find(uint64_t correlation) const;

  size_t external_count() const { return external_.size(); }

 private:
  const CallRef* find_call(uint64_t correlation) const;

  std::vector<CallRef> calls_;
  std::vector<std::pair<uint64_t, uint64_t>> external_;  // CUPTI id -> pushed id
};

}  // namespace gprof::analysis
