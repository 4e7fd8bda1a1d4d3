// The API calls of a file being streamed whose GPU records may still come,
// by CUPTI correlation id (docs/architecture.md §5.3), in bounded memory: a table
// indexed by the id's low bits (ids are handed out in call order, so a slot
// is reused by a call about 2^bits calls later), and a bit per id for the
// calls pushed out of it. GPU records that come before their call wait in a
// bounded table too; pushed out of it, they are unpaired for good, and a
// bit remembers that. A call is pushed out only once walked: one whose
// slot is wanted before that waits aside.
//
// A GPU that falls behind its calls (a training loop queues work seconds
// ahead) delivers records long after their calls left the table. A walked
// call pushed out before the work it issued came is handed to the owner
// (pushed()), which keeps where its time goes aside, on disk; a record of a
// pushed-out call is then late (Gpu::kLate), and the owner adds its time
// there once the file has ended (ops_stream_visitor.cc).
//
// Everything the streaming report cannot answer exactly is a conflict, and
// the file is then read in memory (ops_stream.h): a call whose id a GPU
// record was declared unpaired with, two calls with one id (and, found by
// the owner, a late record of a call that was not kept aside). Ids come
// unwrapped (stream_ids.h): CUPTI's wrap around 2^32 in a long run.
//
// With keep_tags() (--group-by thread, --range), each call carries a value
// (its thread's group, whether it is in range) that tag() answers while the
// call is in the table or aside, and pushed() hands on: a GPU row's group,
// and whether it counts, are its call's.
//
// Memory: 24 bytes × 2^bits (28 with tags), 40 bytes per waiting GPU id (at most
// `waiting_limit`), and 1 bit per correlation id up to the largest pushed
// out (8 KiB pages, made as needed).
#pragma once

#include <cstdint>
#include <deque>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "tools/analysis/model/paged_bits.h"
#include "tools/analysis/model/walk_contexts.h"

namespace gprof::analysis {

class CallSlots {
 public:
  explicit CallSlots(uint32_t bits = 20, size_t waiting_limit = size_t{1} << 18);

  // What GPU work a call issues: nothing (or only a sync record, whose time
  // is not work), one record (a launch, a copy, a set), or many (a graph).
  enum class Expect : uint8_t { kNothing, kOne, kMany };
  // A call with this id was read. Returns false on a conflict. `tag`: kept
  // with keep_tags() only; a tag set while its GPU records waited for it
  // goes first.
  bool add_call(uint64_t correlation, Expect expect = Expect::kNothing, uint32_t tag = 0);

  // Calls carry a tag from now on; call before the first add_call().
  void keep_tags() { tags_.assign(slots_.size(), 0); }
  // The tag of a call has_call() finds, or of an id whose GPU records wait
  // for their call (0: none, or no keep_tags()).
  uint32_t tag(uint64_t correlation) const;
  // A tag known only later: whether the walk found the call in a --range;
  // the stream of the first work of a call, or of an id still waiting for
  // its call (which then gets it).
  void set_tag(uint64_t correlation, uint32_t tag);
  // Whether GPU records of this id waited so long for a call that they were
  // given up: none of this id will pair.
  bool gave_up(uint64_t correlation) const { return given_up_.test(correlation); }

  // Walked calls pushed out of the table whose work may still come (kOne
  // with no record yet, kMany), with their context: the owner keeps where
  // their time goes, then clears this.
  struct Pushed {
    uint64_t correlation;
    uint32_t context;
    uint32_t tag;
  };
  std::vector<Pushed>& pushed() { return pushed_; }
  // The call was walked: late work goes to `context` from now on. Returns
  // false when it was pushed out of the table before (a conflict);
  // `gpu_ns` gets the work time that came before (waiting for the call, or
  // for its walk).
  bool opened(uint64_t correlation, uint32_t context, uint64_t& gpu_ns) {
    Slot& slot = slots_[correlation & mask_];
    if (slot.correlation != correlation) return opened_aside(correlation, context, gpu_ns);
    gpu_ns = slot.gpu_ns;
    slot.gpu_ns = 0;
    slot.context = context;
    slot.opened = true;
    return true;
  }

  enum class Gpu {
    kWaiting,  // its call has not been walked, or not read: time kept here
    kOpened,   // add the time to `context`
    kLate,     // its call was pushed out of the table: see pushed()
  };
  // A GPU record (work: its duration counts; a sync record: ns = 0).
  Gpu gpu(uint64_t correlation, uint64_t ns, uint32_t& context) {
    if (correlation == 0) return gpu_without_call(correlation, ns, context);
    Slot& slot = slots_[correlation & mask_];
    if (slot.correlation != correlation) return gpu_without_call(correlation, ns, context);
    slot.received = true;
    if (slot.opened) return opened_gpu(slot, ns, context);
    wait(slot, ns);
    return Gpu::kWaiting;
  }

  // External correlation (external_ids.h): GPU records of CUPTI id `from`
  // read before the mapping that says they are `to`'s. They move to `to` as
  // gpu() would have taken them; `records` and `ns` get how many and their
  // work time (0 records: none was waiting), `tag` the tag set on `from`
  // (which `to` takes unless it has one). False when they were given up
  // already, which the loader's pairing would not have done (a conflict).
  bool rename(uint64_t from, uint64_t to, Gpu& outcome, uint64_t& records, uint64_t& ns,
              uint32_t& context, uint32_t& tag);
  // Whether a GPU record of this call's id came: 1 or 0, and -1 when the
  // call was pushed out of the table (no longer known).
  int received(uint64_t correlation) {
    if (correlation == 0) return 0;
    if (const Slot* slot = find(correlation)) return slot->received ? 1 : 0;
    return pushed_out_.test(correlation) ? -1 : 0;
  }

  // Whether a call with this id was read and is still in the table or
  // aside: a GPU record gpu() answered kWaiting for pairs then; else it
  // waits for a call that may never come.
  bool has_call(uint64_t correlation) { return correlation != 0 && find(correlation) != nullptr; }
  // Once the file has ended: whether GPU records of this id paired with no
  // call (id 0, given up, or still waiting), the records unpaired() counts.
  bool never_paired(uint64_t correlation) const {
    return correlation == 0 || given_up_.test(correlation) || waiting_.contains(correlation);
  }
  // Records never paired: with id 0, pushed out of the waiting table, and
  // (once the file has ended) still waiting.
  uint64_t unpaired() const;
  // The contexts walked calls refer to (WalkContexts' collection).
  void mark_contexts(WalkContexts& contexts) const;
  void rename_contexts(const std::vector<uint32_t>& renamed);
  void clear();

 private:
  // Trivial, value-initialized (Slot{}: all zero, a free slot), so that the
  // table of 2^20 is made by one memset.
  struct Slot {
    uint64_t correlation;  // 0: free
    uint64_t gpu_ns;
    uint32_t context;  // WalkContexts::kNone: 0
    bool opened;
    bool received;  // a GPU record of it came
    Expect expect;  // kNothing: 0
    uint8_t work;   // kWorked | kRetired
  };
  static_assert(sizeof(Slot) == 24 && std::is_trivial_v<Slot>);
  static_assert(WalkContexts::kNone == 0 && static_cast<int>(Expect::kNothing) == 0);
  // A work record (not a sync record) of the call came.
  static constexpr uint8_t kWorked = 1;
  // Its context was let go (mark_contexts): a kOne call whose work came.
  static constexpr uint8_t kRetired = 2;
  // A walked call's one work record has come: no more of its work is due,
  // so its context need not live on in a long pairing window (with a row
  // per op, --group-by seq, nearly every call has a context of its own).
  static bool retirable(const Slot& slot) {
    return slot.opened && slot.expect == Expect::kOne && (slot.work & kWorked);
  }
  // Work time of a call not walked yet, kept until it is.
  static void wait(Slot& slot, uint64_t ns) {
    slot.gpu_ns += ns;
    if (ns != 0) slot.work |= kWorked;
  }
  // gpu() for a walked call. Work after a retired call's one record is
  // late, as that of a call pushed out of the table without being kept
  // aside: the owner then finds no place for its time (a conflict).
  static Gpu opened_gpu(Slot& slot, uint64_t ns, uint32_t& context) {
    if (ns != 0) {
      if (slot.work & kRetired) return Gpu::kLate;
      slot.work |= kWorked;
    }
    context = slot.context;
    return Gpu::kOpened;
  }
  struct Waiting {
    uint64_t gpu_ns = 0;
    uint64_t records = 0;
    uint32_t tag = 0;
  };
  // opened() and gpu() for a call not in its slot (aside, or none), and
  // gpu() for id 0. The inline parts above answer nearly every record.
  bool opened_aside(uint64_t correlation, uint32_t context, uint64_t& gpu_ns);
  Gpu gpu_without_call(uint64_t correlation, uint64_t ns, uint32_t& context);
  Slot* find(uint64_t correlation);
  void vacate(const Slot& slot);
  uint32_t tag_at(uint64_t correlation) const {
    return tags_.empty() ? 0 : tags_[correlation & mask_];
  }

  uint64_t mask_;
  size_t waiting_limit_;
  std::vector<Slot> slots_;
  // Calls whose slot was taken before they were walked: a thread's last
  // call waits for the thread's next event, however many calls other
  // threads make meanwhile. As many as threads, about.
  std::unordered_map<uint64_t, Slot> unwalked_;
  std::vector<uint32_t> tags_;                         // by slot; empty: no tags
  std::unordered_map<uint64_t, uint32_t> tags_aside_;  // of unwalked_
  PagedBits pushed_out_;                               // calls
  PagedBits given_up_;                                 // GPU ids declared unpaired
  std::unordered_map<uint64_t, Waiting> waiting_;
  std::vector<Pushed> pushed_;
  std::deque<uint64_t> waiting_order_;
  uint64_t given_up_records_ = 0;
  uint64_t zero_id_records_ = 0;
};

}  // namespace gprof::analysis
