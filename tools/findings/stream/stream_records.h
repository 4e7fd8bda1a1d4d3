// The records a file streamed for analysis goes through (streamed_analysis.h),
// each kept in an external sort (tools/analysis/read/spill_sorter.h) in the order
// the next step reads it: what the in-memory Timeline holds, a join at a time.
#pragma once

#include <cstdint>
#include <tuple>
#include <utility>

#include "tools/findings/timeline/timeline.h"

namespace gprof::findings::stream {

// A call as read: range, step, scope and work not known yet. Then placed
// (range: the index of its innermost range's name, step, in_scope).
struct CallRecord {
  Call call;
  uint64_t correlation = 0;
  uint32_t index = 0;          // ApiCall::index
  int32_t range_name = kNone;  // FileScan::range_names()
};

// A placed call paired with the GPU work it issued (call.call.work).
struct PairedCall {
  CallRecord call;
  uint64_t gpu_ns = 0;
  bool has_first = false;
  Work first;  // the first GPU record it issued, in Timeline::work's order
};

// Each order's prefix(): its first two keys as integers, which let the
// sorter sort packed keys instead of the records (spill_sorter.h): for
// records of 32 bytes and more. Smaller ones are sorted as they are, which
// needs less memory than the keys (20 bytes a record while sorting).
using Prefix = std::pair<uint64_t, uint64_t>;

// A push/pop or start/end range (not marks).
struct RangeRecord {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t seq = 0;  // the order it was opened in: Timeline::ranges'
  uint32_t tid = 0;
  uint32_t name = 0;  // FileScan::range_names()
};

// A GPU record with a timestamp, as read.
struct GpuScan {
  Work work;
  uint64_t correlation = 0;
  uint64_t seq = 0;  // file order
  bool is_work = false;
};

// GPU work paired with its call.
struct GpuRecordRow {
  Work work;  // work.call: the call's index
  uint64_t seq = 0;
  bool first_of_call = false;
  bool has_call = false;
  int32_t range_name = kNone;  // the call's
  Call call;                   // the call's, placed
};

// NVTX start/end events, paired after the file as RangePairing does.
struct StartEvent {
  uint64_t id;
  uint64_t time_ns;
  uint64_t seq;
  uint32_t tid;
  uint32_t name;  // FileScan's name key
};
struct EndEvent {
  uint64_t id;
  uint64_t time_ns;
  uint32_t tid;
};

struct ByThreadStart {
  bool operator()(const CallRecord& a, const CallRecord& b) const {
    return std::tie(a.call.tid, a.call.start_ns, a.index) <
           std::tie(b.call.tid, b.call.start_ns, b.index);
  }
  bool operator()(const PairedCall& a, const PairedCall& b) const {
    return (*this)(a.call, b.call);
  }
  static Prefix prefix(const CallRecord& c) { return {c.call.tid, c.call.start_ns}; }
  static Prefix prefix(const PairedCall& p) { return prefix(p.call); }
};
// Calls by correlation, of equal ids the one that started first (correlation_join.h).
struct ByCorrelation {
  bool operator()(const CallRecord& a, const CallRecord& b) const {
    return std::tie(a.correlation, a.call.start_ns, a.index) <
           std::tie(b.correlation, b.call.start_ns, b.index);
  }
  bool operator()(const GpuScan& a, const GpuScan& b) const {
    return std::tie(a.correlation, a.work.start_ns, a.seq) <
           std::tie(b.correlation, b.work.start_ns, b.seq);
  }
  static Prefix prefix(const CallRecord& c) { return {c.correlation, c.call.start_ns}; }
  static Prefix prefix(const GpuScan& g) { return {g.correlation, g.work.start_ns}; }
};
struct ByStart {
  bool operator()(const CallRecord& a, const CallRecord& b) const {
    return std::tie(a.call.start_ns, a.index) < std::tie(b.call.start_ns, b.index);
  }
  bool operator()(const RangeRecord& a, const RangeRecord& b) const {
    return std::tie(a.start_ns, a.seq) < std::tie(b.start_ns, b.seq);
  }
  bool operator()(const GpuRecordRow& a, const GpuRecordRow& b) const {
    return std::tie(a.work.start_ns, a.seq) < std::tie(b.work.start_ns, b.seq);
  }
  static Prefix prefix(const CallRecord& c) { return {c.call.start_ns, c.index}; }
  static Prefix prefix(const RangeRecord& r) { return {r.start_ns, r.seq}; }
  static Prefix prefix(const GpuRecordRow& g) { return {g.work.start_ns, g.seq}; }
};
// A thread's ranges as place_calls sweeps them: by start, longer first.
struct RangeNesting {
  bool operator()(const RangeRecord& a, const RangeRecord& b) const {
    if (a.tid != b.tid) return a.tid < b.tid;
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
    return a.seq < b.seq;
  }
  static Prefix prefix(const RangeRecord& r) { return {r.tid, r.start_ns}; }
};
struct ById {
  bool operator()(const StartEvent& a, const StartEvent& b) const {
    return std::tie(a.id, a.time_ns, a.seq) < std::tie(b.id, b.time_ns, b.seq);
  }
  // Stable on equal times: the sorter keeps the order they were added in.
  bool operator()(const EndEvent& a, const EndEvent& b) const {
    return std::tie(a.id, a.time_ns) < std::tie(b.id, b.time_ns);
  }
  static Prefix prefix(const StartEvent& s) { return {s.id, s.time_ns}; }
};

}  // namespace gprof::findings::stream
