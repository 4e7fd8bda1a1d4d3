// A file's NVTX events paired into ranges as they stream past, with the
// rules of RangePairing (nvtx_ranges.h), so that the memory of trace, export
// and dump does not grow with the ranges: a push/pop range is handed out when it is
// popped (a stack per thread and domain holds only the open ones), a mark at
// once, and start/end events, which may arrive before their starts (threads'
// batches interleave), are paired by merge-joining two external sorters
// (spill_sorter.h) at finish().
//
// Each range comes with its number (the order it was opened in: what
// RangePairing::finish's order numbers it) and, for push/pop ranges, whether
// it crosses another of its thread: push/pop stacks are per domain, so ranges
// of two domains may overlap without nesting, and such a range cannot be a
// slice of its thread's track. The rule (that of sorting a thread's ranges by
// start, longer first, and keeping a stack of the enclosing ones): B crosses
// when a range N of its thread that does not cross started before B and ended
// inside B (N.start < B.start < N.end < B.end). N ends before B does, so it
// is decided by the time B is popped (a thread's events arrive in time
// order); a thread keeps a closed N only while some open range started inside
// it, which nesting ranges (one domain) never do.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "formats/record.h"
#include "tools/analysis/model/nvtx_ranges.h"
#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

class RangeStream {
 public:
  // A range or mark, its number (0, 1, ... in the order they were opened:
  // pushed, started or marked) and whether a push/pop range crosses another.
  using Emit = std::function<void(const analysis::Range& range, uint64_t number, bool crossing)>;

  // `sort_memory`: what each of the start/end sorters keeps before it spills.
  RangeStream(size_t sort_memory, Emit emit);

  // Events of one thread arrive in the order the thread made them, in time
  // order; threads' batches interleave in any order.
  void add(const RangeEvent& event);

  // Hands out the ranges still open (closed at `last_ns`, open at exit) and
  // the start/end ranges; adds what it saw to `counts`.
  void finish(uint64_t last_ns, analysis::RangeCounts& counts);

  // nvtxNameOsThread: thread id -> NVTX string id (the last name given).
  const std::map<uint32_t, uint32_t>& thread_names() const { return thread_names_; }
  // Ranges and marks opened so far: their numbers are below it.
  uint64_t opened() const { return next_; }
  // Each thread that opened a range: the number of its first.
  const std::unordered_map<uint32_t, uint64_t>& first_opened() const { return first_opened_; }

  struct Start {
    uint64_t id;
    uint64_t time_ns;
    uint64_t number;
    uint64_t torch_seq;  // RangeEvent::seq
    uint64_t op_id;
    uint32_t tid;
    uint32_t name;
    uint32_t domain;
  };
  struct End {
    uint64_t id;
    uint64_t time_ns;
    uint32_t tid;
  };
  // Per id, in time order (a start before an end at the same time), as
  // RangePairing pairs them.
  struct ByIdTime {
    bool operator()(const Start& a, const Start& b) const {
      return a.id != b.id             ? a.id < b.id
             : a.time_ns != b.time_ns ? a.time_ns < b.time_ns
                                      : a.number < b.number;
    }
    bool operator()(const End& a, const End& b) const {
      return a.id != b.id ? a.id < b.id : a.time_ns < b.time_ns;
    }
    static std::pair<uint64_t, uint64_t> prefix(const Start& s) { return {s.id, s.time_ns}; }
    static std::pair<uint64_t, uint64_t> prefix(const End& e) { return {e.id, e.time_ns}; }
  };

 private:
  struct Open {
    analysis::Range range;
    uint64_t number;
  };
  using Span = std::pair<uint64_t, uint64_t>;  // start, end
  struct Thread {
    std::vector<std::pair<uint32_t, std::vector<Open>>> stacks;  // by domain
    size_t open = 0;                                             // ranges on the stacks
    // Closed ranges that cross nothing and that an open range started
    // inside: what a range still open may cross.
    std::vector<Span> crossable;
    size_t prune_at = 0;

    std::vector<Open>* stack(uint32_t domain, bool make);
    bool crosses(Span s) const;
    bool opened_inside(Span s) const;
  };

  Thread& thread(uint32_t tid);
  void opened(uint32_t tid);
  void pop(const RangeEvent& e);
  // B popped (or closed at exit) on thread t: whether it crosses; keeps it
  // for the ranges still open when it may matter to them.
  bool close(Thread& t, const analysis::Range& r);
  void pair_start_end(uint64_t last_ns);

  Emit emit_;
  std::unordered_map<uint32_t, Thread> threads_;
  std::pair<uint32_t, Thread*> last_thread_{0, nullptr};
  analysis::SpillSorter<Start, ByIdTime> starts_;
  analysis::SpillSorter<End, ByIdTime> ends_;
  std::map<uint32_t, uint32_t> thread_names_;
  std::unordered_map<uint32_t, uint64_t> first_opened_;
  uint32_t last_opened_ = 0;  // a thread in first_opened_, when it is not empty
  analysis::RangeCounts counts_;
  uint64_t next_ = 0;
};

}  // namespace gprof::analysis
