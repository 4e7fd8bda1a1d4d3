// Which call issued each GPU record: the rule every reader that pairs after
// reading follows (call_pairing.h: the loader and trace; the findings'
// scan: analyze, report's launches and memory views, dump), on records
// sorted outside memory. An API record's id is the CUPTI correlation id of
// the call, or the external id gprof pushed around it during a takeover;
// a GPU record carries the CUPTI id.
//   - A GPU record whose CUPTI id has an external correlation pairs through
//     it (of two mappings of one id, the smaller pushed id); when no call
//     carries that pushed id, by its own id, as a call from before a
//     takeover would; in PairingMode::kExternalOnly (an older gprof's
//     pushed ids, as small as CUPTI's) never by its own id.
//   - Of calls sharing an id, the one that started first issued the work
//     (callers sort their calls so); id 0 never pairs.
// The ids come unwrapped (CUPTI's wrap around 2^32): each reader unwraps
// them as its passes allow (the findings' scan as it reads, stream_ids.h;
// the others over their sorted calls, call_pairing.h).
//
// Call and Gpu records name the id they join on `correlation`; the calls'
// sorter orders by (correlation, start), the GPU records' by correlation
// first. Memory: the sorters' buffers, and the reader's bit per call id
// (PagedBits: 12 MB at 100M calls); a file with external correlations sorts
// its mapped GPU records once more (KeyedGpu).
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>

#include "tools/analysis/model/correlation_unwrap.h"
#include "tools/analysis/model/external_ids.h"
#include "tools/analysis/model/paged_bits.h"
#include "tools/analysis/read/spill_merge.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

enum class PairingMode {
  kCorrelation,   // CuptiStatus SUBSCRIBED (and files without a status)
  kExternalOnly,  // CuptiStatus EXTERNAL_CORRELATION with an older gprof's pushed ids
};

// How a reader makes its sorters: what each keeps in memory before it
// spills, whether it spills on a thread of its own, and how many threads
// merge its runs (spill_merge.h).
struct SortResources {
  size_t bytes = size_t{8} << 20;
  bool background = false;
  unsigned lanes = 1;

  template <typename T, typename Less>
  SpillSorter<T, Less> make() const {
    SpillSorter<T, Less> made(SpillSorter<T, Less>::records_in(bytes));
    if (background) made.spill_in_background();
    return made;
  }
};

// Walks a sorter of records sorted by `key` alongside increasing lookups:
// the first record whose key equals the one asked for.
template <typename T, typename Less, typename Key>
class SortedLookup {
 public:
  SortedLookup(SpillSorter<T, Less>& sorter, Key key, unsigned lanes)
      : cursor_(sorter, lanes), key_(key) {
    valid_ = cursor_.next(current_);
  }
  const T* find(uint64_t value) {
    while (valid_ && key_(current_) < value) valid_ = cursor_.next(current_);
    return valid_ && key_(current_) == value ? &current_ : nullptr;
  }

 private:
  SortedRecords<T, Less> cursor_;
  Key key_;
  T current_;
  bool valid_;
};

// `visit` gets, in correlation order:
//   owner(call), then issued(gpu) for each GPU record of its id (in the GPU
//   sorter's order), then owned(): for the first call of an id, whether it
//   has GPU records or not;
//   other(call) for the later calls of an id and the calls of id 0;
//   unpaired(gpu) for GPU records no call of the file issued.
template <typename Calls, typename Gpus, typename Visit>
void join_sorted_by_correlation(Calls& calls, Gpus& gpu, Visit& visit) {
  const auto* c = calls.next();
  const auto* g = gpu.next();
  while (c != nullptr || g != nullptr) {
    const uint64_t id = c != nullptr && (g == nullptr || c->correlation <= g->correlation)
                            ? c->correlation
                            : g->correlation;
    if (c != nullptr && c->correlation == id && id != 0) {
      visit.owner(*c);
      c = calls.next();
      for (; g != nullptr && g->correlation == id; g = gpu.next()) visit.issued(*g);
      visit.owned();
      for (; c != nullptr && c->correlation == id; c = calls.next()) visit.other(*c);
    } else if (c != nullptr && c->correlation == id) {
      visit.other(*c);
      c = calls.next();
    } else {
      visit.unpaired(*g);
      g = gpu.next();
    }
  }
}

namespace detail {

template <typename Gpu>
struct MappedGpu {
  Gpu record;    // record.correlation: the pushed id
  uint64_t own;  // its CUPTI id
};
template <typename GpuLess>
struct ByPushedId {
  template <typename Gpu>
  bool operator()(const MappedGpu<Gpu>& a, const MappedGpu<Gpu>& b) const {
    return GpuLess{}(a.record, b.record);
  }
  template <typename Gpu>
  static std::pair<uint64_t, uint64_t> prefix(const MappedGpu<Gpu>& m) {
    return {m.record.correlation, 0};
  }
};

// The GPU records by the id each pairs by: its mapping's pushed id when a
// call carries it, else its own id (0 in kExternalOnly). Three sorted
// streams merged, so that only the mapped records sort again: the records
// that keep their own id, as read; the mapped ones by pushed id; and those
// whose pushed id no call carries, by the id they fall back to.
// A mapping's CUPTI id. A named type, not a lambda: a closure type in a
// class template's member gave KeyedGpu's instantiations of different
// translation units different definitions under one name (GCC's LTO found
// it: -Wodr).
struct CuptiIdOf {
  uint64_t operator()(const ExternalId& e) const { return e.cupti; }
};

template <typename Gpu, typename GpuLess>
class KeyedGpu {
  using Mapped = MappedGpu<Gpu>;

 public:
  KeyedGpu(SpillSorter<Gpu, GpuLess>& gpu, SpillSorter<ExternalId, ByCuptiId>& externals,
           const PagedBits& called, PairingMode mode, const SortResources& sort)
      : external_only_(mode == PairingMode::kExternalOnly),
        mapped_(sort.make<Mapped, ByPushedId<GpuLess>>()),
        left_(sort.make<Gpu, GpuLess>()) {
    {
      SortedLookup<ExternalId, ByCuptiId, CuptiIdOf> mapping(externals, CuptiIdOf{}, sort.lanes);
      SortedRecords<Gpu, GpuLess> records(gpu, sort.lanes);
      while (const Gpu* at = records.next()) {
        if (at->correlation == 0) continue;
        if (const ExternalId* e = mapping.find(at->correlation)) {
          if (called.test(e->pushed)) {
            Mapped m{*at, at->correlation};
            m.record.correlation = e->pushed;
            mapped_.add(m);
          } else {
            left(*at, external_only_ ? 0 : at->correlation);
          }
        } else if (external_only_) {
          left(*at, 0);
        }
      }
    }
    as_read_.emplace(gpu, sort.lanes);
    mapping_.emplace(externals, CuptiIdOf{}, sort.lanes);
    mapped_records_.emplace(mapped_, sort.lanes);
    left_records_.emplace(left_, sort.lanes);
    a_ = next_as_read();
    b_ = next_mapped();
    c_ = left_records_->next();
  }

  const Gpu* next() {
    const Gpu** least = nullptr;
    for (const Gpu** head : {&a_, &b_, &c_})
      if (*head != nullptr && (least == nullptr || less_(**head, **least))) least = head;
    if (least == nullptr) return nullptr;
    out_ = **least;
    if (least == &a_)
      a_ = next_as_read();
    else if (least == &b_)
      b_ = next_mapped();
    else
      c_ = left_records_->next();
    return &out_;
  }

 private:
  void left(Gpu g, uint64_t id) {
    g.correlation = id;
    left_.add(g);
  }
  // The records that keep their own id: id 0, and (but in kExternalOnly)
  // those without a mapping.
  const Gpu* next_as_read() {
    while (const Gpu* at = as_read_->next()) {
      if (at->correlation == 0) return at;
      if (!external_only_ && mapping_->find(at->correlation) == nullptr) return at;
    }
    return nullptr;
  }
  const Gpu* next_mapped() {
    const Mapped* at = mapped_records_->next();
    return at != nullptr ? &at->record : nullptr;
  }

  bool external_only_;
  GpuLess less_;
  SpillSorter<Mapped, ByPushedId<GpuLess>> mapped_;
  SpillSorter<Gpu, GpuLess> left_;
  // Pointers: cursors are neither copied nor moved.
  std::optional<SortedRecords<Gpu, GpuLess>> as_read_;
  std::optional<SortedLookup<ExternalId, ByCuptiId, CuptiIdOf>> mapping_;
  std::optional<SortedRecords<Mapped, ByPushedId<GpuLess>>> mapped_records_;
  std::optional<SortedRecords<Gpu, GpuLess>> left_records_;
  const Gpu* a_ = nullptr;
  const Gpu* b_ = nullptr;
  const Gpu* c_ = nullptr;
  Gpu out_;
};

}  // namespace detail

// Pairs a file's GPU records with its calls (the rule above) and hands the
// join to `visit` (join_sorted_by_correlation). With external correlations
// (or in kExternalOnly), the records reach the join by the id each pairs
// by; `called` holds the ids the calls carry (at least their pushed ids),
// as the calls' sorter holds them. The sorters are only read.
template <typename Call, typename CallLess, typename Gpu, typename GpuLess, typename Visit>
void pair_by_correlation(SpillSorter<Call, CallLess>& calls, SpillSorter<Gpu, GpuLess>& gpu,
                         SpillSorter<ExternalId, ByCuptiId>& externals, const PagedBits& called,
                         PairingMode mode, const SortResources& sort, Visit& visit) {
  SortedRecords<Call, CallLess> call_records(calls, sort.lanes);
  if (externals.size() != 0 || mode == PairingMode::kExternalOnly) {
    detail::KeyedGpu<Gpu, GpuLess> keyed(gpu, externals, called, mode, sort);
    join_sorted_by_correlation(call_records, keyed, visit);
  } else {
    SortedRecords<Gpu, GpuLess> gpu_records(gpu, sort.lanes);
    join_sorted_by_correlation(call_records, gpu_records, visit);
  }
}

}  // namespace gprof::analysis
