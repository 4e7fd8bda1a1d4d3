#include "tools/analysis/model/pairing.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "formats/correlation_ids.h"

namespace gprof::analysis {
namespace {

constexpr uint64_t kIdSpace = uint64_t{1} << 32;
constexpr uint64_t kHalf = kIdSpace / 2;

}  // namespace

uint64_t unwrap_correlation(uint64_t raw, uint64_t reference) {
  if (raw >= kIdSpace) return raw;
  uint64_t id = (reference & ~(kIdSpace - 1)) | raw;
  if (id > reference && id - reference > kHalf && id >= kIdSpace)
    id -= kIdSpace;
  else if (id < reference && reference - id > kHalf)
    id += kIdSpace;
  return id;
}

void CallPairing::add_call(const ApiRecord& record, uint32_t index) {
  if (record.correlation == 0) return;
  calls_.push_back(CallRef{record.correlation, record.start_ns, record.end_ns, index, record.api});
}

void CallPairing::add_external(uint64_t correlation, uint64_t external_id) {
  external_.emplace_back(correlation, external_id);
  small_pushed_ids_ = small_pushed_ids_ || !is_pushed_id(external_id);
}

void CallPairing::seal(PairingMode mode) {
  mode_ = mode;
  seal_calls();
  seal_externals();
}

// CUPTI hands ids out in call order, and a call's start is taken when it
// gets its id: in start order, each id is near the one before.
void CallPairing::seal_calls() {
  std::stable_sort(calls_.begin(), calls_.end(),
                   [](const CallRef& a, const CallRef& b) { return a.start_ns < b.start_ns; });
  if (mode_ == PairingMode::kCorrelation) {
    // Pushed ids (a takeover's calls) neither wrap nor time CUPTI's.
    std::optional<uint64_t> previous;
    bool wrapped = false;
    for (CallRef& call : calls_) {
      if (is_pushed_id(call.correlation)) continue;
      call.correlation = unwrap_correlation(call.correlation, previous.value_or(call.correlation));
      previous = call.correlation;
      wrapped = wrapped || call.correlation >= kIdSpace;
    }
    if (wrapped) {
      timeline_.reserve(calls_.size());
      for (const CallRef& call : calls_)
        if (!is_pushed_id(call.correlation))
          timeline_.emplace_back(call.start_ns, call.correlation);
    }
  }
  // Stable: of equal ids, the one that started first is the one found.
  std::stable_sort(calls_.begin(), calls_.end(), [](const CallRef& a, const CallRef& b) {
    return a.correlation < b.correlation;
  });
}

// The pushed ids never wrap and follow call order; the CUPTI ids they map
// from are unwrapped in that order, and timed by the call that pushed them.
void CallPairing::seal_externals() {
  if ((mode_ == PairingMode::kExternalOnly || pushed_ids_apart()) && !external_.empty()) {
    std::stable_sort(external_.begin(), external_.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
    // The first mapping's id follows the last call's that carried CUPTI's
    // own (gprof pushes ids from its yield on): unwrapped against the
    // calls' ids at its call's start, it takes the wrap they had reached.
    const CallRef* first = find_call(external_.front().second);
    uint64_t previous = unwrap_at(external_.front().first, first ? first->start_ns : UINT64_MAX);
    bool wrapped = false;
    for (auto& [cupti, pushed] : external_) {
      cupti = unwrap_correlation(cupti, previous);
      previous = cupti;
      wrapped = wrapped || cupti >= kIdSpace;
    }
    if (wrapped) {
      for (const auto& [cupti, pushed] : external_)
        if (const CallRef* call = find_call(pushed)) timeline_.emplace_back(call->start_ns, cupti);
      std::stable_sort(timeline_.begin(), timeline_.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
    }
  }
  std::stable_sort(external_.begin(), external_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

uint64_t CallPairing::unwrap_at(uint64_t correlation, uint64_t time_ns) const {
  if (timeline_.empty()) return correlation;
  auto it = std::upper_bound(timeline_.begin(), timeline_.end(), time_ns,
                             [](uint64_t t, const auto& entry) { return t < entry.first; });
  const uint64_t reference = it == timeline_.begin() ? it->second : std::prev(it)->second;
  return unwrap_correlation(correlation, reference);
}

const CallRef* CallPairing::find_call(uint64_t correlation) const {
  auto it = std::lower_bound(
      calls_.begin(), calls_.end(), correlation,
      [](const CallRef& call, uint64_t value) { return call.correlation < value; });
  return it != calls_.end() && it->correlation == correlation ? &*it : nullptr;
}

const CallRef* CallPairing::find(uint64_t correlation, uint64_t gpu_start_ns) const {
  if (correlation == 0) return nullptr;
  correlation = unwrap_at(correlation, gpu_start_ns);
  auto mapped =
      std::lower_bound(external_.begin(), external_.end(), correlation,
                       [](const auto& entry, uint64_t value) { return entry.first < value; });
  const bool has_mapping = mapped != external_.end() && mapped->first == correlation;
  if (mode_ == PairingMode::kExternalOnly) return has_mapping ? find_call(mapped->second) : nullptr;
  if (has_mapping) {
    if (const CallRef* call = find_call(mapped->second)) return call;
  }
  return find_call(correlation);
}

}  // namespace gprof::analysis
