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
// Nor are most records sorted: pushed calls' snapshots stay in memory
// (pushed_blocks.h) and late work of a call there is summed into its
// snapshot as it comes; only calls of blocks gone to disk, and their late
// work, are sorted and joined when the file ends.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/analysis/model/pushed_blocks.h"
#include "tools/analysis/model/walk_contexts.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

class LateDeviceTime {
 public:
  static constexpr uint32_t kMaxSnapshots = uint32_t{1} << 17;

  explicit LateDeviceTime(uint32_t max_snapshots = kMaxSnapshots,
                          size_t max_blocks = PushedBlocks::kMaxBlocks)
      : max_snapshots_(max_snapshots), blocks_(max_blocks) {}

  // A call pushed out while its work may still come: where that work's
  // time goes, while `context` is alive.
  void pushed(uint64_t correlation, const WalkContexts& contexts, uint32_t context);
  // GPU work of a pushed call (CallSlots::Gpu::kLate).
  void late(uint64_t correlation, uint64_t ns) {
    if (ns == 0) return;
    const uint32_t snapshot = blocks_.find(correlation);
    if (snapshot != PushedBlocks::kNone)
      sums_[snapshot] += ns;
    else
      late_.add(Late{correlation, ns});
  }
  // Once the file has ended: each late record's time to its call's targets.
  // False when a late record's call was not kept (pushed() never told).
  bool join(const std::function<void(uint32_t key, WalkField field, uint64_t ns)>& add);

  size_t snapshots() const { return snapshot_start_.size(); }
  size_t blocks_in_memory() const { return blocks_.blocks_in_memory(); }

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

  void keep_on_disk(uint64_t correlation, uint32_t snapshot) {
    kept_.add(Kept{correlation, snapshot, kSnapshot});
  }

  uint32_t max_snapshots_;
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

  PushedBlocks blocks_;         // pushed calls' snapshots in memory
  std::vector<uint64_t> sums_;  // late time per snapshot, summed as it came

  SpillSorter<Kept, ByCorrelation> kept_{kBudget};
  SpillSorter<Late, ByCorrelation> late_{kBudget};
};

}  // namespace gprof::analysis
