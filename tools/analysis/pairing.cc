#include "tools/analysis/pairing.h"

#include <algorithm>

namespace gprof::analysis {

void CallPairing::add_call(const ApiRecord& record, uint32_t index) {
  if (record.correlation == 0) return;
  calls_.push_back(CallRef{record.correlation, record.start_ns, record.end_ns, index, record.api});
}

void CallPairing::add_external(uint64_t correlation, uint64_t external_id) {
  external_.emplace_back(correlation, external_id);
}

void CallPairing::seal() {
  // Stable, so that the first of equal ids is the one lower_bound finds.
  std::stable_sort(calls_.begin(), calls_.end(), [](const CallRef& a, const CallRef& b) {
    return a.correlation < b.correlation;
  });
  std::stable_sort(external_.begin(), external_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

const CallRef* CallPairing::find_call(uint64_t correlation) const {
  auto it = std::lower_bound(
      calls_.begin(), calls_.end(), correlation,
      [](const CallRef& call, uint64_t value) { return call.correlation < value; });
  return it != calls_.end() && it->correlation == correlation ? &*it : nullptr;
}

const CallRef* CallPairing::find(uint64_t correlation) const {
  if (correlation == 0) return nullptr;
  auto mapped =
      std::lower_bound(external_.begin(), external_.end(), correlation,
                       [](const auto& entry, uint64_t value) { return entry.first < value; });
  if (mapped != external_.end() && mapped->first == correlation) {
    if (const CallRef* call = find_call(mapped->second)) return call;
  }
  return find_call(correlation);
}

}  // namespace gprof::analysis
