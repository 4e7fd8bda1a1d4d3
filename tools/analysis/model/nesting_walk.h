// The walk that nests one thread's CPU events (cpu_tree.h has the rules)
// and adds each kept event to its row. It is fed the thread's events in
// walk order (start, longer first, a range before a call over the same
// interval, then id), either all at once after a sort (aggregate_cpu_nodes)
// or as a stream (ops_stream.h), where two things are not known yet when an
// event is opened:
//   - a push/pop range still open: it is opened with no end (kOpenEnd) and
//     given one by set_end() while it is on the stack, where it must be,
//     since nothing that starts before its pop can close it;
//   - the GPU time and memory a call issued, whose records may come after
//     the call has been closed: the walk hands out, for each opened call, a
//     context (walk_contexts.h): the rows and columns its GPU time would
//     have reached through the stack, to which late time is added directly.
// Sums do not depend on the order they are made in, so both ways give the
// same rows.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/row.h"
#include "tools/analysis/model/cpu_tree.h"
#include "tools/analysis/model/walk_contexts.h"

namespace gprof::analysis {

inline constexpr uint64_t kOpenEnd = UINT64_MAX;

// Where kept events go: keys are asked for in walk order (rows appear in the
// order the walk meets them), values added by key.
class WalkRows {
 public:
  virtual ~WalkRows() = default;
  virtual uint32_t key_of(const CpuNode& node) = 0;
  virtual RowValues& row(uint32_t key) = 0;
  // row(key), read straight from the vector when the rows are one (the
  // stream's): the walk asks twice per event.
  RowValues& row_of(uint32_t key) { return by_key_ != nullptr ? (*by_key_)[key] : row(key); }

 protected:
  // Set by an owner whose row(key) is (*by_key_)[key], whatever the key.
  std::vector<RowValues>* by_key_ = nullptr;
};

// What visit() learned of an event.
struct WalkVisit {
  uint8_t result = 0;  // CpuNodeResult
  // Calls: where GPU time it issued later goes (WalkContexts::kNone without
  // contexts).
  uint32_t context = WalkContexts::kNone;
};

class NestingWalk {
 public:
  // `contexts`: nullptr when every node comes with all its GPU time.
  NestingWalk(const CpuTreeRules& rules, WalkRows& rows, WalkContexts* contexts = nullptr)
      : rules_(rules), rows_(rows), contexts_(contexts) {}

  // The next event of the thread in walk order (end_ns >= start_ns, or
  // kOpenEnd for a range not yet closed).
  WalkVisit visit(const CpuNode& n);
  enum class SetEnd {
    kDone,
    kNotOpen,  // no open range `id` on the stack
    // Something walked as inside the range does not fit in it (a range of
    // another domain that ends later, a call starting at its end): a sort
    // would have nested them otherwise.
    kMisnested,
  };
  // Gives the open range with node id `id` its end.
  SetEnd set_end(uint32_t id, uint64_t end_ns);
  // Where the memory a call moves goes (the call just visited, on top of the
  // stack); empty when it was not kept and nothing above it counts.
  std::vector<WalkTarget> memory_targets() const;
  // Closes every event; open ranges must have been given their end.
  void close_all();
  // The contexts the stack refers to (WalkContexts' collection).
  void mark_contexts(WalkContexts& contexts) const;
  void rename_contexts(const std::vector<uint32_t>& renamed);
  bool empty() const { return stack_.empty(); }

 private:
  struct Open {
    // Made in place from its event, once per event: each member is written
    // once.
    explicit Open(const CpuNode& n)
        : node(n),
          self_device_ns(n.own_device_ns),
          device_total_ns(n.own_device_ns),
          self_device_mem(n.flags & kNodeHostMemory ? 0 : n.own_mem),
          device_mem(self_device_mem),
          self_host_mem(n.flags & kNodeHostMemory ? n.own_mem : 0),
          host_mem(self_host_mem) {}
    CpuNode node;
    uint64_t children_ns = 0;
    uint64_t self_device_ns = 0;
    uint64_t device_total_ns = 0;
    int64_t self_device_mem = 0;
    int64_t device_mem = 0;
    int64_t self_host_mem = 0;
    int64_t host_mem = 0;
    uint32_t key = 0;
    uint32_t chain = WalkContexts::kNone;  // where time added to device_total goes
    // Every call directly inside shares one chain, and a call's context
    // follows from its key: both remembered, as launch loops repeat them.
    uint32_t call_chain = kUnknown;
    uint32_t last_call_key = kUnknown;
    uint32_t last_call_context = 0;
    bool kept = false;
    bool counts_totals = false;  // no kept ancestor of the same key
    uint8_t result = 0;
    // Of the children closed so far (set_end checks they fit).
    bool any_child = false;
    uint64_t max_child_start = 0;
    uint64_t max_child_end = 0;
  };

  static constexpr uint32_t kUnknown = UINT32_MAX;

  void detached(const CpuNode& n, WalkVisit& out);
  void call_context(Open& o, Open* parent, WalkVisit& out);
  void open(const CpuNode& n, WalkVisit& out);
  void close_top();

  const CpuTreeRules& rules_;
  WalkRows& rows_;
  WalkContexts* contexts_;
  std::vector<Open> stack_;
  // Where on the stack the ranges not given their end yet are, bottom to
  // top: a pop's range is most often the last, however many ended ranges
  // lie above it (scanning the stack for it made 140,000 nested ranges
  // take 74 s).
  std::vector<uint32_t> open_ranges_;
  // Kept events of each key on the stack: by key below kDenseKeys, else
  // (keys of rows grouped by a number, number_rows.h) the few open ones.
  static constexpr uint32_t kDenseKeys = uint32_t{1} << 24;
  std::vector<uint32_t> open_per_key_;
  // Hashed: as many as the stack is deep, which a file of nested ops with
  // a row each can make 100,000 (scanned, this list and NumberRows' labels
  // that left open cost that file 12 s).
  std::unordered_map<uint32_t, uint32_t> open_sparse_;  // key -> events
  // The dense ones stay below kDenseKeys: a key below size() is dense.
  uint32_t& open_of(uint32_t key) {
    if (key < open_per_key_.size()) [[likely]]
      return open_per_key_[key];
    return open_new(key);
  }
  uint32_t& open_new(uint32_t key);
  uint32_t& open_sparse(uint32_t key);
  uint32_t top_call_key_ = kUnknown;  // call_context's memory for calls without a parent
  uint32_t top_call_context_ = 0;
};

}  // namespace gprof::analysis
