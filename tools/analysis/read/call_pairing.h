// Which API call issued each GPU record of a file (docs/architecture.md
// §5.3), for every reader that pairs once the file has been read: the
// loader (profile.h) and trace. The rule, correlation_join.h's, in short: a
// GPU record pairs with the call whose id is its own, or through an
// external correlation with the call that pushed the mapped id; of calls
// sharing an id, the first to start; in PairingMode::kExternalOnly (an
// older gprof's pushed ids, as small as CUPTI's) only through a mapping.
// report's stream pairs in a window instead (call_slots.h) and leaves a file
// it cannot pair so to the loader.
//
// CUPTI's ids are 32-bit and wrap in a long run (2^32 calls: about an hour
// at a million calls a second). Where the ids recorded span enough for a
// wrap, they are unwrapped to 64 bits before the join (correlation_unwrap.h):
//   - PairingMode::kCorrelation: the ids in the order CUPTI handed them out,
//     each to the value nearest the one before: the calls' CUPTI ids by
//     their start and, during a takeover (pushed ids above CUPTI's), the
//     mappings' CUPTI ids by the start of the call that pushed their id;
//     then each GPU record's to the value nearest that of the ids handed out
//     around its start. (An older gprof's file that pairs so, its pushed ids
//     as small as CUPTI's, has only its calls' ids unwrapped: its mappings'
//     pushed ids cannot be told from CUPTI's.)
//   - PairingMode::kExternalOnly (an older gprof's): the calls carry pushed
//     ids, which never wrap; the mappings' CUPTI ids are unwrapped in pushed
//     order, timed by the call that pushed them, and the GPU records' ids
//     against those.
// Ids are per process, hence per file.
//
// Call: trivially copyable, with `correlation` (as recorded; the join's,
// unwrapped, once paired), `start_ns` and `index` (the call's position in
// the file, a tie-break). Gpu: trivially copyable, with `correlation` (the
// id it joins on), `start_ns()`, and `unwrap(id)`, which gives it its
// unwrapped id. Memory: the sorters' budgets (SortResources), a bit per call
// id (PagedBits; two while the ids are unwrapped) and, where ids wrap, 16
// bytes per 4096 calls.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>

#include "formats/correlation_ids.h"
#include "formats/gprof.pb.h"
#include "tools/analysis/model/correlation_unwrap.h"
#include "tools/analysis/model/external_ids.h"
#include "tools/analysis/model/paged_bits.h"
#include "tools/analysis/read/correlation_join.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

template <typename Call, typename Gpu>
class CallPairing {
  using Prefix = std::pair<uint64_t, uint64_t>;
  // Of equal ids, the call that started first issued the work.
  struct CallsById {
    bool operator()(const Call& a, const Call& b) const {
      return std::tie(a.correlation, a.start_ns, a.index) <
             std::tie(b.correlation, b.start_ns, b.index);
    }
    static Prefix prefix(const Call& c) { return {c.correlation, c.start_ns}; }
  };
  // In the order CUPTI handed the calls their ids.
  struct CallsByStart {
    bool operator()(const Call& a, const Call& b) const {
      return std::tie(a.start_ns, a.index) < std::tie(b.start_ns, b.index);
    }
    static Prefix prefix(const Call& c) { return {c.start_ns, c.index}; }
  };
  struct GpuById {
    bool operator()(const Gpu& a, const Gpu& b) const { return a.correlation < b.correlation; }
    static Prefix prefix(const Gpu& g) { return {g.correlation, 0}; }
  };
  struct ByPushed {
    bool operator()(const ExternalId& a, const ExternalId& b) const { return a.pushed < b.pushed; }
    static Prefix prefix(const ExternalId& e) { return {e.pushed, 0}; }
  };

 public:
  explicit CallPairing(const SortResources& sort)
      : sort_(sort),
        calls_(sort.make<Call, CallsById>()),
        gpu_(sort.make<Gpu, GpuById>()),
        externals_(sort.make<ExternalId, ByCuptiId>()) {}

  // Calls with id 0 never pair and are not kept.
  void add_call(const Call& call) {
    if (call.correlation == 0) return;
    calls_.add(call);
    called_.set(call.correlation);
    if (!is_pushed_id(call.correlation)) widen(call_ids_, call.correlation);
  }
  void add_gpu(const Gpu& gpu) { gpu_.add(gpu); }
  // CUPTI id `cupti` was issued while gprof had pushed `pushed`.
  void add_external(uint64_t cupti, uint64_t pushed) {
    externals_.add(ExternalId{cupti, pushed});
    small_pushed_ids_ = small_pushed_ids_ || !is_pushed_id(pushed);
    // CUPTI id 0 names no call (external_ids.h): nothing to unwrap.
    if (cupti != 0) widen(external_ids_, cupti);
  }
  uint64_t external_count() const { return externals_.size(); }

  // The mode a file pairs in: kExternalOnly where its CUPTI status (the
  // last one read) is EXTERNAL_CORRELATION and some pushed id is below
  // kPushedIdBase (a file from before formats/correlation_ids.h, whose pushed
  // ids and CUPTI's were both small counters, so that a GPU record CUPTI
  // correlated with a call gprof did not see would pair with an unrelated
  // call otherwise).
  PairingMode mode(const std::optional<pb::CuptiStatus>& cupti) const {
    const bool external = cupti && cupti->state() == pb::CuptiStatus::EXTERNAL_CORRELATION;
    return external && small_pushed_ids_ ? PairingMode::kExternalOnly : PairingMode::kCorrelation;
  }

  // Once every record of the file is in: unwraps the ids, then hands the
  // join to `visit` (correlation_join.h's join_sorted_by_correlation: the
  // calls and records come with their ids unwrapped). Once only.
  template <typename Visit>
  void pair(PairingMode mode, Visit& visit) {
    unwrap(mode);
    pair_by_correlation(calls_, gpu_, externals_, called_, mode, sort_, visit);
  }

  // After pair(), where the ids were unwrapped: what unwraps a call's
  // id as recorded (at(id, its start)) to the join's, for a reader that
  // wrote its calls before pairing. Else nullptr: every id is its own.
  const CorrelationUnwrap* call_unwrap() const { return calls_unwrapped_ ? &unwrap_ : nullptr; }

 private:
  static void widen(std::pair<uint64_t, uint64_t>& span, uint64_t id) {
    span = {std::min(span.first, id), std::max(span.second, id)};
  }

  void unwrap(PairingMode mode) {
    if (mode == PairingMode::kCorrelation) {
      const bool mappings = !small_pushed_ids_;
      const uint64_t lowest =
          std::min(call_ids_.first, mappings ? external_ids_.first : UINT64_MAX);
      const uint64_t highest = std::max(call_ids_.second, mappings ? external_ids_.second : 0);
      if (!CorrelationUnwrap::may_wrap(lowest, highest)) return;
      unwrap_handouts(mappings);
      if (!unwrap_.wrapped()) return;
    } else {
      if (!CorrelationUnwrap::may_wrap(external_ids_.first, external_ids_.second)) return;
      auto externals = in_push_order([&](uint64_t cupti, const Call* call) {
        return unwrap_.next(cupti, call ? std::optional<uint64_t>(call->start_ns) : std::nullopt);
      });
      unwrap_.finish();
      if (!unwrap_.wrapped()) return;
      externals_ = std::move(externals);
    }
    // The GPU records' ids, by when they started.
    SpillSorter<Gpu, GpuById> gpu = sort_.make<Gpu, GpuById>();
    auto cursor = gpu_.sorted();
    Gpu g;
    while (cursor.next(g)) {
      if (g.correlation != 0) g.unwrap(unwrap_.at(g.correlation, g.start_ns()));
      gpu.add(g);
    }
    gpu_ = std::move(gpu);
  }

  // A mapping with when CUPTI handed its id out: at the start of the call
  // that pushed its id, or (that call not in the file) no sample, placed
  // after the mapping pushed before it (before the first so timed, should
  // none be; after every call, should none at all be).
  struct TimedMapping {
    ExternalId mapping;
    uint64_t time_ns;
    uint64_t order;  // pushed order
    bool timed;
  };
  struct MappingsByTime {
    bool operator()(const TimedMapping& a, const TimedMapping& b) const {
      return std::tie(a.time_ns, a.order) < std::tie(b.time_ns, b.order);
    }
    static Prefix prefix(const TimedMapping& m) { return {m.time_ns, m.order}; }
  };

  // kCorrelation: CUPTI handed its ids out in call order, to the calls gprof
  // recorded them with and, during a takeover, to the calls that pushed the
  // mappings' ids. Both in one time order, so that a takeover's ids go on
  // from the calls' before it, and the calls' after it from the takeover's,
  // however long it lasted; the GPU records unwrap against both. Without
  // `with_mappings`, the calls' alone, and the ids the join looks the
  // mappings' pushed ids up in stay as read.
  void unwrap_handouts(bool with_mappings) {
    SpillSorter<TimedMapping, MappingsByTime> mappings = sort_.make<TimedMapping, MappingsByTime>();
    if (with_mappings && externals_.size() != 0) {
      SpillSorter<ExternalId, ByPushed> by_pushed = sort_.make<ExternalId, ByPushed>();
      {
        auto cursor = externals_.sorted();
        ExternalId e;
        while (cursor.next(e)) by_pushed.add(e);
      }
      const auto call_key = [](const Call& c) { return c.correlation; };
      // The untimed mappings pushed before the first timed one go just
      // before it; with none timed, after every call.
      uint64_t time_ns = UINT64_MAX;
      {
        SortedLookup<Call, CallsById, decltype(call_key)> calls(calls_, call_key, sort_.lanes);
        auto cursor = by_pushed.sorted();
        ExternalId e;
        while (cursor.next(e)) {
          if (const Call* call = calls.find(e.pushed)) {
            time_ns = call->start_ns;
            break;
          }
        }
      }
      SortedLookup<Call, CallsById, decltype(call_key)> calls(calls_, call_key, sort_.lanes);
      auto cursor = by_pushed.sorted();
      ExternalId e;
      uint64_t order = 0;
      while (cursor.next(e)) {
        const Call* call = calls.find(e.pushed);
        if (call != nullptr) time_ns = call->start_ns;
        mappings.add(TimedMapping{e, time_ns, order++, call != nullptr});
      }
    }
    SpillSorter<Call, CallsByStart> by_start = sort_.make<Call, CallsByStart>();
    {
      auto cursor = calls_.sorted();
      Call c;
      while (cursor.next(c)) by_start.add(c);
    }
    SpillSorter<Call, CallsById> calls = sort_.make<Call, CallsById>();
    SpillSorter<ExternalId, ByCuptiId> externals = sort_.make<ExternalId, ByCuptiId>();
    PagedBits called;
    auto call_cursor = by_start.sorted();
    auto mapping_cursor = mappings.sorted();
    Call c;
    TimedMapping m;
    bool has_call = call_cursor.next(c), has_mapping = mapping_cursor.next(m);
    while (has_call || has_mapping) {
      if (has_call && (!has_mapping || c.start_ns <= m.time_ns)) {
        c.correlation = unwrap_.next(c.correlation, c.start_ns);
        called.set(c.correlation);
        calls.add(c);
        has_call = call_cursor.next(c);
      } else {
        if (m.mapping.cupti != 0)
          m.mapping.cupti = unwrap_.next(
              m.mapping.cupti, m.timed ? std::optional<uint64_t>(m.time_ns) : std::nullopt);
        externals.add(m.mapping);
        has_mapping = mapping_cursor.next(m);
      }
    }
    unwrap_.finish();
    if (!unwrap_.wrapped()) return;
    calls_ = std::move(calls);
    if (with_mappings) {
      externals_ = std::move(externals);
      called_ = std::move(called);
    }
    calls_unwrapped_ = true;
  }

  // The mappings in the order of the ids gprof pushed, each with its CUPTI
  // id replaced by unwrap(CUPTI id, the call that pushed the id or nullptr):
  // by CUPTI id again.
  template <typename Unwrap>
  SpillSorter<ExternalId, ByCuptiId> in_push_order(Unwrap unwrap) {
    SpillSorter<ExternalId, ByPushed> by_pushed = sort_.make<ExternalId, ByPushed>();
    {
      auto cursor = externals_.sorted();
      ExternalId e;
      while (cursor.next(e)) by_pushed.add(e);
    }
    SpillSorter<ExternalId, ByCuptiId> out = sort_.make<ExternalId, ByCuptiId>();
    const auto call_key = [](const Call& c) { return c.correlation; };
    SortedLookup<Call, CallsById, decltype(call_key)> calls(calls_, call_key, sort_.lanes);
    auto cursor = by_pushed.sorted();
    ExternalId e;
    while (cursor.next(e)) {
      e.cupti = unwrap(e.cupti, calls.find(e.pushed));
      out.add(e);
    }
    return out;
  }

  SortResources sort_;
  SpillSorter<Call, CallsById> calls_;
  SpillSorter<Gpu, GpuById> gpu_;
  SpillSorter<ExternalId, ByCuptiId> externals_;
  PagedBits called_;  // the calls' ids, as the join looks pushed ids up (correlation_join.h)
  bool small_pushed_ids_ = false;
  // CUPTI's ids as recorded, lowest and highest: whether they can have wrapped.
  std::pair<uint64_t, uint64_t> call_ids_{UINT64_MAX, 0};
  std::pair<uint64_t, uint64_t> external_ids_{UINT64_MAX, 0};
  CorrelationUnwrap unwrap_;
  bool calls_unwrapped_ = false;
};

}  // namespace gprof::analysis
