// One event of a file as the trace writes it: a self-contained fixed-size
// record (names are ids into the file's string table), so that a file's
// events can be sorted outside memory (spill_sorter.h) and each written
// without looking anything up.
#pragma once

#include <cstdint>
#include <utility>

#include "formats/api_ids.h"
#include "formats/record.h"
#include "tools/analysis/model/nvtx_ranges.h"

namespace gprof::trace {

inline constexpr uint32_t kNoIndex = UINT32_MAX;

// In the order events of one track and time are written: enclosing slices
// first, ranges around the calls they hold.
enum class EventKind : uint8_t {
  kRange,       // a push/pop range: X
  kCall,        // an API call: X, then a flow start per GPU work item
  kGpu,         // a kernel, copy or set: X, then its flow end
  kAsyncBegin,  // a start/end range: b (dur holds the range's length)
  kMark,        // i
  kAsyncEnd,    // e (at the range's end; dur holds its length)
  kCounter,     // C
};

// CUPTI's synchronization records (a host waiting on a stream, an event, the
// context) are drawn on a row of their own per stream, as kineto draws its
// "Stream Sync" events: its tid is the stream's plus this (kineto's
// kSyncStreamTidOffset), so that they never overlap the stream's kernels on
// one row. A sync on no stream (the context; stream 0 in the file:
// collector/gpu/activity_parser.cc) has the offset alone less one.
inline constexpr uint32_t kSyncTidOffset = 1000000;
inline uint32_t sync_tid(uint32_t stream) {
  return stream == 0 ? kSyncTidOffset - 1 : kSyncTidOffset + stream;
}

inline bool is_slice(EventKind kind) {
  return kind == EventKind::kRange || kind == EventKind::kCall || kind == EventKind::kGpu;
}

enum class Counter : uint8_t { kDeviceMemory, kHostMemory, kGpuBusy };

struct CallPart {
  uint64_t correlation;
  uint64_t stream;
  uint64_t bytes;
  Dim3 grid;
  Dim3 block;
  uint32_t shared_mem;
  uint32_t kernel;  // demangled name id; kNoIndex when none
  int32_t result;
  ApiId api;
};

struct GpuLaunch {
  Dim3 grid;
  Dim3 block;
  uint32_t shared_mem;
  uint32_t registers;
};

struct GpuPart {
  uint64_t correlation;  // the issuing call's when paired, else the record's
  uint64_t graph_node;
  uint32_t graph;
  uint32_t device;
  uint32_t stream;
  uint32_t name;  // row name id
  GpuKind kind;
  union {
    GpuLaunch launch;  // kernels
    uint64_t bytes;    // copies and sets
  };
};

struct RangePart {
  uint64_t seq;           // analysis::Range::seq: torch sequence_nr + 1; 0: none
  uint64_t op_id;         // 0: none
  uint32_t name;          // id
  uint32_t domain;        // id; Interner::kEmpty for the default domain
  uint32_t input_shapes;  // id of a PyTorch op's "sizes" (kineto's "Input Dims"); kEmpty: none
  bool open_at_exit;
};

struct CounterPart {
  double value;  // bytes, or percent busy
  Counter counter;
};

struct Item {
  // The sort key (earlier()).
  uint64_t start_ns;  // on the file's clock
  uint64_t dur_ns;
  uint64_t ref;    // call index, GPU work index, range index or counter number
  uint32_t track;  // FileStream::tracks
  uint32_t sub;    // 0: the event; 1, 2...: a call's flow starts, written after it
  EventKind kind;
  // What --window and --range judge it by (event_filter.h) besides its own
  // span: the issuing or memory-moving call of GPU work and memory counters
  // (has_call), and a flow start's GPU end.
  bool has_call;
  uint64_t other_start, other_end;
  // The kind's details. Records are spilled to disk: every byte counts.
  union {
    CallPart call;     // sub 0
    uint64_t flow_id;  // a call's flow start (sub > 0): relative to the file's first
    GpuPart gpu;       // its flow end's id is `ref`
    RangePart range;
    CounterPart counter;
  };
};

static_assert(sizeof(Item) <= 128, "spilled records: keep them small");

// Within a track: by time; at one time enclosing slices first; a call's or
// GPU slice's flows right after it.
struct Earlier {
  bool operator()(const Item& a, const Item& b) const {
    if (a.track != b.track) return a.track < b.track;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    const bool a_slice = is_slice(a.kind);
    const bool b_slice = is_slice(b.kind);
    if (a_slice != b_slice) return a_slice;
    if (a_slice && a.dur_ns != b.dur_ns) return a.dur_ns > b.dur_ns;
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.ref != b.ref) return a.ref < b.ref;
    return a.sub < b.sub;
  }
  // The order's first two keys, for the sorter (spill_sorter.h).
  static std::pair<uint64_t, uint64_t> prefix(const Item& e) { return {e.track, e.start_ns}; }
};

}  // namespace gprof::trace
