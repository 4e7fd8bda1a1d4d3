// GPU work whose row depends on the call that issued it, for the streaming
// report (ops_stream.h): with --group-by thread the GPU row is that of the
// call's thread; with --range the work counts only when its call is in
// range. A call carries that as its tag in CallSlots (call_slots.h), known
// once the call has been read (thread) or walked (range). Work read before
// then waits here by correlation id. The tags of calls pushed out of the
// table stay in memory by blocks of ids (pushed_blocks.h), and their work
// counts as it comes; the work of calls whose block went to disk is sorted
// there with their tags and joined once the file has ended, so that memory
// stays bounded by the calls in flight:
//   - waiting: about as many ids as CallSlots keeps waiting (ids it gives up
//     on leave, their work without a call), 48 bytes a record;
//   - pushed tags: PushedBlocks' bound (about 17 MB);
//   - late work and pushed tags on disk: external sorts, 4 MiB in memory each.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "formats/record.h"
#include "tools/analysis/model/call_slots.h"
#include "tools/analysis/model/pushed_blocks.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

// A GPU record kept for later: with a capture window, one that came before
// any call of its id (counted once the windows are known, or left out as
// work issued outside them, as the in-memory loader does: profile.cc);
// here, work waiting for its call's tag.
struct HeldGpu {
  uint64_t seq;  // of the file's GPU records with a timestamp: a GPU row's place
  uint64_t correlation;
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t label;  // its GPU row's, when it is work (without the call's group)
  uint32_t device;
  GpuKind kind;
  bool held = false;  // by the capture window: not in the file's counts yet
};
struct BySeq {
  bool operator()(const HeldGpu& a, const HeldGpu& b) const { return a.seq < b.seq; }
};
constexpr size_t kHeldBudget = (size_t{4} << 20) / sizeof(HeldGpu);

class CallTaggedWork {
 public:
  // Where the work goes once its call's tag is known, or known to be none.
  class Sink {
   public:
    virtual ~Sink() = default;
    virtual void count(const HeldGpu& work, uint32_t tag) = 0;
    virtual void without_call(const HeldGpu& work) = 0;
  };

  // `at_walk`: tags are set when a call is walked (--range), not when it is
  // read.
  CallTaggedWork(CallSlots& slots, Sink& sink, bool at_walk,
                 size_t max_blocks = PushedBlocks::kMaxBlocks)
      : slots_(slots), sink_(sink), at_walk_(at_walk), blocks_(max_blocks) {}

  // A work record as CallSlots::gpu() paired it.
  void add(const HeldGpu& work, CallSlots::Gpu pairing) { place(work, pairing); }
  // The tag of call `correlation` is known now: the work that waited for it
  // counts.
  void call_tagged(uint64_t correlation, uint32_t tag) {
    if (waiting_.empty()) return;
    auto it = waiting_.find(correlation);
    if (it == waiting_.end()) return;
    for (const HeldGpu& h : it->second) sink_.count(h, tag);
    waiting_.erase(it);
  }
  // A call CallSlots pushed out of its table while work may still come.
  void pushed(uint64_t correlation, uint32_t tag) {
    const auto evict = [this](uint64_t id, uint32_t kept) { pushed_tags_.add(Tag{id, kept}); };
    if (!blocks_.keep(correlation, tag, evict)) pushed_tags_.add(Tag{correlation, tag});
  }
  // External correlation: work that waited under CUPTI id `from` belongs to
  // pushed id `to` (CallSlots::rename answered `outcome`).
  void renamed(uint64_t from, uint64_t to, CallSlots::Gpu outcome);
  // Every call has been read and walked: what still waits has no call.
  void no_more_calls();
  // Once the file has ended: the work of pushed-out calls, with their tags.
  // False when a late record's call was not handed on (pushed()).
  bool join_late();

 private:
  struct Tag {
    uint64_t correlation;
    uint32_t tag;
  };
  struct ByCorrelation {
    bool operator()(const HeldGpu& a, const HeldGpu& b) const {
      return a.correlation != b.correlation ? a.correlation < b.correlation : a.seq < b.seq;
    }
    bool operator()(const Tag& a, const Tag& b) const { return a.correlation < b.correlation; }
  };
  void place(const HeldGpu& work, CallSlots::Gpu pairing);
  void give_up_waiting();

  CallSlots& slots_;
  Sink& sink_;
  const bool at_walk_;
  std::unordered_map<uint64_t, std::vector<HeldGpu>> waiting_;
  static constexpr size_t kSweep = size_t{1} << 16;
  size_t sweep_above_ = kSweep;
  PushedBlocks blocks_;  // pushed calls' tags in memory
  SpillSorter<HeldGpu, ByCorrelation> late_{kHeldBudget};
  SpillSorter<Tag, ByCorrelation> pushed_tags_{(size_t{4} << 20) / sizeof(Tag)};
};

}  // namespace gprof::analysis
