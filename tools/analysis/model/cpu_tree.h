// How the CPU-side events of one file (NVTX ranges, API calls) nest, and
// what each adds to its row (docs/architecture.md §7).
//
// Per thread, events sorted by start (longer first, a range before a call at
// the same interval) are nested with a stack as torch's
// EventList._populate_cpu_children does: an event's parent is the innermost
// event of its thread that encloses it; a partial overlap is not nesting.
// Start/end ranges ("detached") take no part: they may end on another
// thread, so they are neither parents nor children. Then, per event:
//   Self CPU      = duration - durations of direct children (never below 0)
//   Self CUDA     = for a range, GPU time of the work its direct child API
//                   calls issued (and their children's); 0 for an API call
//   CUDA total    = for a range, GPU time issued by all its descendants; 0
//                   for an API call (torch appends kernels to the op, never
//                   to the runtime event)
//   issued        = for an API call, GPU time of the work it issued itself
//                   (Row::issued_device_ns, the api view's own columns)
//   (Self) Mem    = the same, for bytes allocated minus freed (device, host)
// and a row sums its events, except that an event nested inside a counted
// event of the same key adds nothing to the totals (CPU, CUDA, memory):
// recursion counted once.
//
// Scope (--range, --top-level-only): an event is "in range" when it, or an
// ancestor, is a range the user named (kNodeScopeRoot), or it lies inside a
// start/end range the user named (kNodeInWindow). Only kept events count:
// in range when a range filter is set, and without a parent when
// top_level_only; their values are computed from the whole tree all the same.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tools/analysis/aggregate/key_averages.h"

namespace gprof::analysis {

enum CpuNodeFlag : uint8_t {
  kNodeRange = 1u << 0,       // an NVTX range (push/pop unless detached)
  kNodeDetached = 1u << 1,    // a start/end range: no parent, no children
  kNodeScopeRoot = 1u << 2,   // its name matches --range
  kNodeInWindow = 1u << 3,    // inside a start/end range whose name matches --range
  kNodeHostMemory = 1u << 4,  // own_mem is pinned host memory (else device memory)
};

// 48 bytes: a file holds one per API call and range until its end.
struct CpuNode {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;         // an end before the start counts as zero length
  uint64_t own_device_ns = 0;  // GPU time of the work it issued itself (API calls)
  int64_t own_mem = 0;         // bytes it allocated (+) or freed (-); kNodeHostMemory: pinned
  uint32_t thread = 0;
  uint32_t id = 0;     // the caller's; results are indexed by it; smaller opens first on ties
  uint32_t label = 0;  // the caller's; handed to the key function
  uint8_t flags = 0;   // CpuNodeFlag
};
static_assert(sizeof(CpuNode) == 48, "one per call and range of a file: keep it small");

struct CpuTreeRules {
  bool range_filter = false;    // count only events in range
  bool top_level_only = false;  // count only events without a parent
};

// What the walk learned of each node, by node id.
enum CpuNodeResult : uint8_t {
  kResultInRange = 1u << 0,     // in range (see above), whether or not filtering
  kResultUnderRange = 1u << 1,  // has a push/pop range as an ancestor
  kResultKept = 1u << 2,        // counted in its row
};

// Whether `a` comes before `b` among one thread's events in the walk: by
// start, longer first, a range before a call over the same interval (it
// encloses the call it annotates), then by id. Inline: the stream asks it
// a few times per event. `Node`: a CpuNode, or what of one a holder keeps
// (with the same fields and range()).
template <typename Node>
inline bool walks_before(const Node& a, const Node& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
  if (range(a) != range(b)) return range(a);
  return a.id < b.id;
}
inline bool range(const CpuNode& n) {
  return (n.flags & kNodeRange) != 0;
}

using NodeKeyFunction = std::function<KeyAverages::Key(const CpuNode&)>;

// Adds the nodes of one file to their rows (`key_of` is asked for kept nodes
// only, in walk order, so keys are created in that order). Sorts `nodes`
// and clamps an end before the start to the start.
// Returns CpuNodeResult flags indexed by node id (ids not given stay 0).
std::vector<uint8_t> aggregate_cpu_nodes(std::vector<CpuNode>& nodes, const CpuTreeRules& rules,
                                         const NodeKeyFunction& key_of, KeyAverages& rows);

}  // namespace gprof::analysis
