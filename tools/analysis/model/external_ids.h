// The external correlations of a file being streamed (CUPTI id -> the id
// gprof pushed around its call while another tool held CUPTI's subscriber,
// docs/architecture.md §3.3), in bounded memory: a table indexed by the CUPTI
// id's low bits, as CallSlots keeps calls (CUPTI hands ids out in call
// order, so a slot is reused about 2^bits calls later), and a bit per id
// pushed out of it.
//
// A GPU record pairs through its mapping when it has one, else by its own
// id (correlation_join.h, pushed ids apart). A mapping can come after the GPU
// record (they are written from different CUPTI buffers); the owner then
// moves what the record left waiting under its CUPTI id (CallSlots::
// rename). A GPU far behind its calls delivers records whose mapping was
// pushed out of the table long before (translate()'s `lost`): the mappings
// pushed out are kept on disk, sorted by CUPTI id, and the owner looks its
// lost records up there once the file has ended (join_lost()). Files whose
// pushed ids start at 1 (files of gprof before formats/correlation_ids.h)
// are read in memory. CUPTI ids come unwrapped (stream_ids.h).
//
// Memory: 16 bytes × 2^bits once a mapping is read, 1 bit per CUPTI id up
// to the largest pushed out (8 KiB pages, made as needed), and 1 MiB of
// mappings pushed out before they spill.
#pragma once

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "tools/analysis/model/paged_bits.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

// An external correlation: GPU records of CUPTI id `cupti` were issued by
// the call that pushed `pushed`.
struct ExternalId {
  uint64_t cupti;
  uint64_t pushed;
};
// Of two mappings of one CUPTI id, the smaller pushed id first.
struct ByCuptiId {
  bool operator()(const ExternalId& a, const ExternalId& b) const {
    return std::tie(a.cupti, a.pushed) < std::tie(b.cupti, b.pushed);
  }
  static std::pair<uint64_t, uint64_t> prefix(const ExternalId& e) { return {e.cupti, e.pushed}; }
};

class ExternalIds {
 public:
  // The table is made by the first add(): a file without a takeover, the
  // most of them, costs nothing.
  explicit ExternalIds(uint32_t bits = 20) : bits_(bits) {}

  enum class Added {
    kNew,       // a mapping the table did not hold
    kAgain,     // the same mapping once more, or one for id 0 (pairs with nothing)
    kConflict,  // a second pushed id for one CUPTI id, or one for an id pushed out
    kSmallIds,  // a pushed id below kPushedIdBase: an older file
  };
  Added add(uint64_t cupti, uint64_t pushed);

  // The id a GPU record of CUPTI id `cupti` pairs by. `lost`: its mapping
  // was pushed out of the table, and the answer is unknown.
  uint64_t translate(uint64_t cupti, bool& lost) const {
    lost = false;
    if (cupti == 0 || empty_) return cupti;
    const Slot& slot = slots_[cupti & mask_];
    if (slot.cupti == cupti) return slot.pushed;
    lost = pushed_out_.test(cupti);
    return cupti;
  }
  bool any() const { return !empty_; }

  // Once the file has ended: `lost`, records translate() called lost sorted
  // by their CUPTI id (`cupti(record)`), each handed to `found` with the
  // pushed id of its mapping.
  template <typename T, typename Less, typename Cupti, typename Found>
  void join_lost(SpillSorter<T, Less>& lost, Cupti cupti, Found found) {
    auto mappings = pushed_out_mappings_.sorted();
    auto records = lost.sorted();
    ExternalId m;
    bool has_m = mappings.next(m);
    for (T r; records.next(r);) {
      const uint64_t id = cupti(r);
      while (has_m && m.cupti < id) has_m = mappings.next(m);
      // Every lost record's id was pushed out with its mapping.
      if (has_m && m.cupti == id) found(r, m.pushed);
    }
  }

 private:
  using Slot = ExternalId;  // cupti 0: free
  uint32_t bits_;
  uint64_t mask_ = 0;
  std::vector<Slot> slots_;
  PagedBits pushed_out_;
  SpillSorter<ExternalId, ByCuptiId> pushed_out_mappings_{(size_t{1} << 20) / sizeof(ExternalId)};
  bool empty_ = true;
};

}  // namespace gprof::analysis
