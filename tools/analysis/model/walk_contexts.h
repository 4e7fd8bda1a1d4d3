// Where GPU time that arrives after its call was walked goes (nesting_walk.h):
// a context is the list of (row, column) a nanosecond of the call's GPU work
// adds to, as the stack stood when the call was opened. Contexts are
// interned as a trie (a parent context plus at most two targets), so that a
// call's context costs one lookup whatever the depth, and their number
// follows the distinct stacks of the run, not its calls.
//
// Distinct stacks still grow with a run whose ranges are named per step
// (torch's ProfilerStep#N: a row per step): the owner marks the contexts
// still referred to and sweeps the rest (collect()), so that memory follows
// the stacks in flight. Memory: about 80 bytes per context.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/analysis/aggregate/row.h"

namespace gprof::analysis {

enum class WalkField : uint8_t {
  kIssued,       // Row::issued_device_ns (the call's own row)
  kSelfDevice,   // Row::self_device_ns (a range's calls directly inside it)
  kDeviceTotal,  // Row::device_total_ns
  kSelfMemory,   // self_device_mem or self_cpu_mem, by the memory's space
  kTotalMemory,  // device_mem or cpu_mem
};

struct WalkTarget {
  uint32_t key = 0;
  WalkField field = WalkField::kIssued;
  bool operator==(const WalkTarget&) const = default;
};

class WalkContexts {
 public:
  static constexpr uint32_t kNone = 0;  // the empty context: adds to nothing

  WalkContexts();
  // `parent` plus up to two targets (`count` of them).
  // Inline: nearly every call is answered by the recent answers.
  uint32_t extend(uint32_t parent, const WalkTarget* targets, uint32_t count) {
    if (count == 0) return parent;
    const Key key = key_of(parent, targets, count);
    const Recent& recent = recent_[Hash{}(key) % kRecent];
    if (recent.id != kNone && recent.key == key) return recent.id;
    return extend_slow(key, parent, targets, count);
  }
  // Calls fn(target) for every target of `context`.
  template <typename Fn>
  void for_each(uint32_t context, Fn&& fn) const {
    for (uint32_t c = context; c != kNone; c = nodes_[c].parent)
      for (uint8_t i = 0; i < nodes_[c].count; ++i) fn(nodes_[c].targets[i]);
  }
  size_t size() const { return nodes_.size(); }
  void clear();

  // Garbage collection: mark() every context still referred to, then
  // sweep(), which drops the others and returns each old id's new one
  // (kNone for a dropped one): the owner renames what it holds.
  void mark(uint32_t context);
  std::vector<uint32_t> sweep();
  // Changes whenever ids may name other contexts (clear(), sweep()): for
  // whoever keeps answers by context id.
  uint32_t generation() const { return generation_; }

 private:
  struct Node {
    uint32_t parent = kNone;
    WalkTarget targets[2];
    uint8_t count = 0;
    bool marked = false;
  };
  struct Key {
    uint64_t parent;
    uint64_t first;
    uint64_t second;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    size_t operator()(const Key& k) const {
      return (k.parent * 0x9E3779B97F4A7C15ull) ^ (k.first * 0xC2B2AE3D27D4EB4Full) ^
             (k.second + 0x165667B19E3779F9ull);
    }
  };
  static Key key_of(const Node& n);
  // 0 is "no target"; a target is its key and field, plus one.
  static uint64_t code(const WalkTarget& t) {
    return ((static_cast<uint64_t>(t.key) << 3) | static_cast<uint64_t>(t.field)) + 1;
  }
  // The key of `parent` plus the first two of `count` (> 0) targets.
  static Key key_of(uint32_t parent, const WalkTarget* targets, uint32_t count) {
    return Key{parent, code(targets[0]), count > 1 ? code(targets[1]) : 0};
  }
  uint32_t extend_slow(const Key& key, uint32_t parent, const WalkTarget* targets, uint32_t count);

  // The index of every context by key: open addressing (linear probing, a
  // power-of-two size, at most half full) of ids, each with bits of its
  // key's hash, so that a question reads one slot and, but for a rare
  // collision, only the node it asks for: a run with a row per step makes
  // new stacks all along, and the index of a long run is larger than the
  // caches. id kNone: an empty slot (the empty context is never looked up).
  struct IndexSlot {
    uint32_t id = kNone;
    uint32_t check = 0;  // the hash's bits above those that place it
  };
  static uint64_t index_hash(const Key& key) { return Hash{}(key)*0x9E3779B97F4A7C15ull; }
  IndexSlot& index_place(const Key& key, uint64_t hash);  // where `key` is, or would go
  void index_add(const Key& key, uint32_t id);
  void index_reset(size_t count);  // empty, with room for `count`

  std::vector<IndexSlot> index_;
  size_t index_count_ = 0;
  std::vector<Node> nodes_;
  uint32_t generation_ = 0;
  // The index's recent answers, by hash: a launch loop asks the same few
  // questions over and over.
  struct Recent {
    Key key{};
    uint32_t id = kNone;
  };
  static constexpr size_t kRecent = 1024;
  std::vector<Recent> recent_ = std::vector<Recent>(kRecent);
};

// Adds `ns` (GPU time) to the field of `row` a target names.
inline void add_device_field(RowValues& row, WalkField field, uint64_t ns) {
  switch (field) {
    case WalkField::kIssued:
      row.issued_device_ns += ns;
      break;
    case WalkField::kSelfDevice:
      row.self_device_ns += ns;
      break;
    case WalkField::kDeviceTotal:
      row.device_total_ns += ns;
      break;
    case WalkField::kSelfMemory:
    case WalkField::kTotalMemory:
      break;  // memory has targets of its own (NestingWalk::memory_targets)
  }
}

// Adds `ns` (GPU time) to the rows a context names.
template <typename RowOf>
void add_device_time(const WalkContexts& contexts, uint32_t context, uint64_t ns, RowOf&& row_of) {
  contexts.for_each(context,
                    [&](const WalkTarget& t) { add_device_field(row_of(t.key), t.field, ns); });
}

}  // namespace gprof::analysis
