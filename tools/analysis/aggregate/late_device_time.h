// GPU time that comes after its call left the pairing table (CallSlots
// pushed the walked call out before its work came), for the streaming
// report (ops_stream.h): the call's device targets (its context's rows and
// fields, walk_contexts.h) are kept as it leaves, the late work's time as it
// comes, both sorted by correlation id on disk past 4 MiB each, and joined
// once the file has ended. Memory stays bounded however far the GPU falls
// behind its calls.
//
// A launch loop pushes millions of calls out with the same few target
// lists, so a call keeps one record naming its list (a snapshot, kept once
// in memory), and the join sums late time per snapshot before it adds to
// rows: one record sorted and one addition per call instead of one per
// target. Past kMaxSnapshots distinct lists (a row per call, a run with
// millions of named steps) calls keep their targets inline, as records of
// their own, so that memory stays bounded.
//
// Nor are most records sorted: pushed calls are kept in memory in blocks
// of kBlockIds ids, each a byte per id naming one of the block's (at most
// 255) snapshots, and late work of a call in a block in memory is summed
// into its snapshot as it comes. Past kMaxBlocks blocks the oldest goes to
// disk, a record per call, as does a block with more snapshots: late work
// of its calls is then sorted and joined when the file ends. So a GPU up
// to about kMaxBlocks × kBlockIds calls behind sorts nothing, in about
// 17 MB.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tools/analysis/model/walk_contexts.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

class LateDeviceTime {
 public:
  static constexpr uint32_t kMaxSnapshots = uint32_t{1} << 17;

  static constexpr size_t kMaxBlocks = size_t{1} << 14;
  static constexpr uint64_t kBlockIds = 1024;

  explicit LateDeviceTime(uint32_t max_snapshots = kMaxSnapshots, size_t max_blocks = kMaxBlocks)
      : max_snapshots_(max_snapshots), max_blocks_(max_blocks) {}

  // A call pushed out while its work may still come: where that work's
  // time goes, while `context` is alive.
  void pushed(uint64_t correlation, const WalkContexts& contexts, uint32_t context);
  // GPU work of a pushed call (CallSlots::Gpu::kLate).
  void late(uint64_t correlation, uint64_t ns) {
    if (ns == 0) return;
    const uint32_t snapshot = in_memory(correlation);
    if (snapshot != kNoSnapshot)
      sums_[snapshot] += ns;
    else
      late_.add(Late{correlation, ns});
  }
  // Once the file has ended: each late record's time to its call's targets.
  // False when a late record's call was not kept (pushed() never told).
  bool join(const std::function<void(uint32_t key, WalkField field, uint64_t ns)>& add);

  size_t snapshots() const { return snapshot_start_.size(); }
  size_t blocks_in_memory() const { return resident_.size(); }

 private:
  // A pushed call's record on disk: a snapshot, one target of its own, or none.
  struct Kept {
    uint64_t correlation;
    uint32_t value;  // the snapshot id (kSnapshot) or the target's row key
    uint8_t field;   // a WalkField, kSnapshot or kNoTarget
  };
  struct Late {
    uint64_t correlation;
    uint64_t ns;
  };
  struct ByCorrelation {
    bool operator()(const Kept& a, const Kept& b) const { return a.correlation < b.correlation; }
    bool operator()(const Late& a, const Late& b) const { return a.correlation < b.correlation; }
    // Radix-sorted keys instead of a merge sort (spill_sorter.h).
    static std::pair<uint64_t, uint64_t> prefix(const Kept& k) { return {k.correlation, 0}; }
    static std::pair<uint64_t, uint64_t> prefix(const Late& l) { return {l.correlation, 0}; }
  };
  static constexpr uint8_t kNoTarget = 0xff;
  static constexpr uint8_t kSnapshot = 0xfe;
  static constexpr size_t kBudget = (size_t{4} << 20) / sizeof(Kept);

  // The snapshot of `context`'s device targets; kNoSnapshot past the limit.
  static constexpr uint32_t kNoSnapshot = UINT32_MAX;
  uint32_t snapshot_of(const WalkContexts& contexts, uint32_t context);
  void device_targets(const WalkContexts& contexts, uint32_t context);

  // The snapshot of a call pushed in a block kept in memory, or kNoSnapshot.
  uint32_t in_memory(uint64_t correlation) {
    const Block* block = resident(correlation / kBlockIds);
    if (block == nullptr) return kNoSnapshot;
    const uint8_t at = block->index[correlation % kBlockIds];
    return at == 0 ? kNoSnapshot : block->snapshots[at - 1];
  }
  struct Block {
    std::vector<uint32_t> snapshots;  // at most 255
    std::vector<uint8_t> index;       // per id: 0 (not pushed) or 1 + its snapshot's place
  };
  Block* resident(uint64_t block) {
    if (block == last_block_) return last_;
    const auto it = resident_.find(block);
    last_block_ = block;
    last_ = it == resident_.end() ? nullptr : &it->second;
    return last_;
  }
  void keep_on_disk(uint64_t correlation, uint32_t snapshot);
  void block_to_disk(uint64_t block);

  uint32_t max_snapshots_;
  size_t max_blocks_;
  std::vector<WalkTarget> found_;  // device_targets()' answer
  // Snapshot s's targets: snapshot_targets_[snapshot_start_[s] ..
  // snapshot_start_[s + 1]) (the end for the last).
  std::vector<WalkTarget> snapshot_targets_;
  std::vector<uint32_t> snapshot_start_;
  std::unordered_map<std::string, uint32_t> snapshot_ids_;  // by the targets' bytes
  // Recent answers by context id, while the contexts' ids hold.
  struct Recent {
    uint32_t context = WalkContexts::kNone;
    uint32_t generation = 0;
    uint32_t snapshot = kNoSnapshot;
  };
  std::array<Recent, 256> recent_{};

  std::unordered_map<uint64_t, Block> resident_;  // blocks in memory, by number
  std::deque<uint64_t> arrival_;                  // their numbers, oldest first
  std::unordered_set<uint64_t> on_disk_;          // blocks that went to disk
  uint64_t last_block_ = UINT64_MAX;              // resident()'s last answer
  Block* last_ = nullptr;
  std::vector<uint64_t> sums_;  // late time per snapshot, summed as it came

  SpillSorter<Kept, ByCorrelation> kept_{kBudget};
  SpillSorter<Late, ByCorrelation> late_{kBudget};
};

}  // namespace gprof::analysis
