// --group-by stream|device when the GPU falls far behind its calls: an API
// row's group is the stream or device of the first GPU work its call issued
// (ops_rows.cc), which may come millions of records after the call. The
// streaming report holds a call back from its thread's walk until its work
// has come (ThreadStream::hold_until_ready), a bounded number of events; a
// file whose GPU lags further is read twice instead (ops_stream.cc): a first
// pass finds each call's group, by its index in the file, and a second reads
// them in call order as it reads the calls.
//
// The first pass learns a group in one of two ways. Work that comes while
// its call is in the pairing table (CallSlots) names the call's index at
// once (found()). Work of a call pushed out of the table before any of its
// work came is late: the call's id and index are kept (pushed()), the first
// late work's group by id (late()), both sorted by id on disk past 4 MiB,
// and joined once the file has ended (finish()). Memory stays bounded
// however far the GPU lags: a bit per id for the calls still waiting.
#pragma once

#include <cstdint>
#include <optional>

#include "tools/analysis/model/call_slots.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

class CallWorkGroups {
 public:
  // Call `call`'s first work is on stream or device `value`.
  void found(uint64_t call, uint64_t value) { groups_.add(Group{call, value}); }
  // Call `call`, of id `correlation`, left the pairing table before any of
  // its work came.
  void pushed(uint64_t correlation, uint64_t call) {
    pending_.add(Pending{correlation, call});
    waiting_.set(correlation);
  }
  // Work of a call pushed out of the table: true when it is that call's
  // first (its group), false when the call was not kept by pushed() or has
  // its group already.
  bool late(uint64_t correlation, uint64_t value) {
    if (!waiting_.test(correlation)) return false;
    waiting_.reset(correlation);
    late_.add(Pending{correlation, value});
    return true;
  }

  // Once the first pass has ended; then the groups in call order.
  void finish();
  // Asked with increasing `call`: its group's value, nullopt for a call
  // whose work never came (or that issues none).
  std::optional<uint64_t> group(uint64_t call);

 private:
  struct Group {
    uint64_t call;
    uint64_t value;
  };
  struct Pending {  // a pushed call's index, or a late record's value, by id
    uint64_t correlation;
    uint64_t value;
  };
  struct Order {
    bool operator()(const Group& a, const Group& b) const { return a.call < b.call; }
    bool operator()(const Pending& a, const Pending& b) const {
      return a.correlation < b.correlation;
    }
  };
  static constexpr size_t kBudget = (size_t{4} << 20) / sizeof(Group);

  SpillSorter<Group, Order> groups_{kBudget};
  SpillSorter<Pending, Order> pending_{kBudget};
  SpillSorter<Pending, Order> late_{kBudget};
  PagedBits waiting_;  // pushed calls whose first work has not come
  std::optional<SpillSorter<Group, Order>::Cursor> read_;
  Group next_{};
  bool has_next_ = false;
};

}  // namespace gprof::analysis
