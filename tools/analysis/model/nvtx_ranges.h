// Pairs a file's NVTX events into ranges (docs/architecture.md §3.6). The shim stores
// events, not ranges, so that nothing the program did is lost in the host:
// the rules for what does not pair live here.
//   push/pop:  a stack per thread and domain (NVTX keeps one per domain); a
//              pop with nothing open is an "unbalanced pop" and is ignored.
//   start/end: paired by range id, whatever the threads; an end without a
//              start is counted and ignored.
//   either:    a range still open when the file ends is closed at the file's
//              last timestamp and counted as "open at exit".
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "formats/record.h"

namespace gprof::analysis {

enum class RangeKind : uint8_t {
  kPushPop,   // nests on its thread
  kStartEnd,  // may end on another thread; never a parent of API calls
  kMark,      // an instant (nvtxMark): start = end
};

struct Range {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;   // >= start_ns
  uint32_t tid = 0;      // the thread that pushed, started or marked it
  uint32_t end_tid = 0;  // the thread that popped or ended it
  uint32_t name = 0;     // NVTX string id; 0: no message
  uint32_t domain = 0;   // DOMAIN string id; 0: the default domain
  // PyTorch emit_nvtx numbers of the push, start or mark (RangeEvent).
  uint64_t seq = 0;    // torch sequence_nr + 1; 0: none
  uint64_t op_id = 0;  // 0: none
  RangeKind kind = RangeKind::kPushPop;
  bool open_at_exit = false;
};

// A range as the push or mark `e` opens it: its start, thread, name,
// domain and torch numbers (a mark also ends there).
inline Range range_opened_by(const RangeEvent& e) {
  Range r;
  r.start_ns = e.time_ns;
  r.tid = e.tid;
  r.name = e.name;
  r.domain = e.domain;
  r.seq = e.seq;
  r.op_id = e.op_id;
  if (e.op == RangeOp::kMark) {
    r.end_ns = e.time_ns;
    r.end_tid = e.tid;
    r.kind = RangeKind::kMark;
  }
  return r;
}

// What a file's NVTX events amounted to.
struct RangeCounts {
  uint64_t push_pop = 0;  // ranges, open-at-exit ones included
  uint64_t start_end = 0;
  uint64_t marks = 0;
  uint64_t unbalanced_pops = 0;
  uint64_t ends_without_start = 0;
  uint64_t open_at_exit = 0;
  uint64_t cross_thread = 0;  // start/end ranges ended on another thread

  RangeCounts& operator+=(const RangeCounts& other);
  // Whether a report should mention them: something did not pair, or a
  // range crossed threads (it is a row, but no parent of API calls).
  bool noteworthy() const {
    return unbalanced_pops || ends_without_start || open_at_exit || cross_thread;
  }
};

// The start/end rule, on a file's start and end events each sorted by (id,
// time): per id, in time order (a start before an end at the same time), an
// end closes the earliest start still open, and an end with none open is
// counted; ids are unique per process, so a repeated id is a new range once
// the first has ended. Starts still open when their id's events run out end
// at `last_ns`, open at exit. `next(event)` reads the next of a sorted stream
// (false at its end); `closed(range, start)` takes each range. Adds to
// `counts` all but start_end, which the caller counts where it keeps them.
// RangePairing pairs sorted vectors with it, RangeStream (range_stream.h) sorted
// temporary files.
template <typename Start, typename End, typename NextStart, typename NextEnd, typename Closed>
void pair_sorted_start_end(NextStart&& next_start, NextEnd&& next_end, uint64_t last_ns,
                           RangeCounts& counts, Closed&& closed) {
  const auto close = [&](const Start& start, uint64_t end_ns, uint32_t end_tid, bool at_exit) {
    Range r;
    r.kind = RangeKind::kStartEnd;
    r.start_ns = start.time_ns;
    r.end_ns = std::max(end_ns, start.time_ns);
    r.tid = start.tid;
    r.end_tid = end_tid;
    r.name = start.name;
    r.domain = start.domain;
    r.seq = start.torch_seq;
    r.op_id = start.op_id;
    r.open_at_exit = at_exit;
    if (at_exit) ++counts.open_at_exit;
    if (!at_exit && end_tid != start.tid) ++counts.cross_thread;
    closed(r, start);
  };
  Start s{};
  End e{};
  bool has_start = next_start(s);
  bool has_end = next_end(e);
  std::deque<Start> open;
  while (has_start || has_end) {
    const uint64_t id = has_start && (!has_end || s.id <= e.id) ? s.id : e.id;
    while ((has_start && s.id == id) || (has_end && e.id == id)) {
      if (has_start && s.id == id && (!has_end || e.id != id || s.time_ns <= e.time_ns)) {
        open.push_back(s);
        has_start = next_start(s);
        continue;
      }
      const End end = e;
      has_end = next_end(e);
      if (open.empty()) {
        ++counts.ends_without_start;
        continue;
      }
      close(open.front(), end.time_ns, end.tid, false);
      open.pop_front();
    }
    for (const Start& start : open) close(start, last_ns, start.tid, true);
    open.clear();
  }
}

class RangePairing {
 public:
  // Events of one thread arrive in the order the thread made them; threads'
  // batches interleave in any order.
  void add(const RangeEvent& event);

  // The ranges and marks, in the order they were opened (file order), open
  // ones closed at `last_ns`. Adds what it saw to `counts`; empty afterwards.
  std::vector<Range> finish(uint64_t last_ns, RangeCounts& counts);

  // nvtxNameOsThread: thread id -> NVTX string id (the last name given).
  const std::map<uint32_t, uint32_t>& thread_names() const { return thread_names_; }

 private:
  struct Opened {
    Range range;
    uint64_t seq;  // order of opening, for a stable output
  };
  struct Start {
    uint64_t id;
    uint64_t time_ns;
    uint64_t seq;
    uint32_t tid;
    uint32_t name;
    uint32_t domain;
    uint64_t torch_seq;  // RangeEvent::seq
    uint64_t op_id;
  };
  struct End {
    uint64_t id;
    uint64_t time_ns;
    uint32_t tid;
  };
  void pair_start_end(uint64_t last_ns);

  std::map<std::pair<uint32_t, uint32_t>, std::vector<Opened>> stacks_;  // (tid, domain)
  std::vector<Opened> done_;
  std::vector<Start> starts_;
  std::vector<End> ends_;
  std::map<uint32_t, uint32_t> thread_names_;
  RangeCounts counts_;
  uint64_t seq_ = 0;
};

}  // namespace gprof::analysis
