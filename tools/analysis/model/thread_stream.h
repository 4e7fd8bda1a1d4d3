// One thread's CPU events as a stream, handed to its NestingWalk in the
// order a sort by start would give (cpu_tree.h), without sorting the file.
//
// The shim queues a thread's events as they happen: a push or pop at its
// time, a call when it starts (its record is completed in place when it
// returns), and the writer drains the queue in that order, a drain at a
// time: one frame holds the drain's calls and ranges as separate batches
// (collector/output/writer_drain.cc), so a frame's events are sorted when it ends, and a
// later frame holds only events that happened no earlier than the latest
// event time so far. So when a frame ends, every event that starts before
// that time is in its final place and is walked. A push is walked with no
// end, and set_end() gives it its pop (nesting_walk.h).
//
// That reasoning is checked, not trusted: an event that would have to be
// walked before one already walked, or a range whose end shows a nesting
// other than the one walked, makes end_frame()/set_end() return false, and
// the caller reads the file in memory instead (ops_stream.h).
//
// Memory: a frame's events of the thread, and the walk's stack.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "tools/analysis/model/nesting_walk.h"

namespace gprof::analysis {

struct StreamEvent {
  CpuNode node;              // end_ns = kOpenEnd for a push
  uint64_t correlation = 0;  // calls
  bool memory = false;       // a call that allocates or frees
  bool sync = false;         // a synchronize call (throughput's sync lines)
  bool issues_work = false;  // a launch, copy or set: GPU work may pair with it
  // A launch's kernel row, counted when the walk says the call is in range
  // (a file without GPU records counts launches); UINT32_MAX: none.
  uint32_t launch_label = UINT32_MAX;
};
static_assert(sizeof(StreamEvent) == 64, "a frame's events of a thread: keep it small");

// Told of each event as it is walked; false stops the stream.
class WalkedEvents {
 public:
  virtual ~WalkedEvents() = default;
  virtual bool walked(const StreamEvent& event, const WalkVisit& visit, NestingWalk& walk) = 0;
  // With ThreadStream::hold_until_ready(): asked before an event is walked,
  // which may change its label; false holds it, and every later event of
  // the thread, until the next frame. `must`: it is walked whatever the
  // answer (the file has ended, or the thread holds too many events).
  virtual bool ready(StreamEvent& /*event*/, bool /*must*/) { return true; }
};

// WalkedEvents from a function (tests).
using WalkedFunction = std::function<bool(const StreamEvent&, const WalkVisit&, NestingWalk&)>;
class WalkedFunctionEvents final : public WalkedEvents {
 public:
  explicit WalkedFunctionEvents(WalkedFunction fn) : fn_(std::move(fn)) {}
  bool walked(const StreamEvent& event, const WalkVisit& visit, NestingWalk& walk) override {
    return fn_(event, visit, walk);
  }

 private:
  WalkedFunction fn_;
};

class ThreadStream {
 public:
  ThreadStream(const CpuTreeRules& rules, WalkRows& rows, WalkContexts& contexts,
               WalkedEvents& walked)
      : walk_(rules, rows, &contexts), walked_(walked) {}

  // An event of the current frame, queued at `event_ns` (a call's start, a
  // push's time).
  void add(const StreamEvent& event, uint64_t event_ns) {
    (event.node.flags & kNodeRange ? pushes_ : calls_).add(event);
    advance(event_ns);
  }
  // The same, made in place by fill(StreamEvent&) (given a value-initialized
  // one): the batch loops' way, where an event written field by field and
  // then copied whole stalls on the copy's wide loads.
  template <typename Fill>
  void add_made(bool range, uint64_t event_ns, Fill&& fill) {
    Pending& pending = range ? pushes_ : calls_;
    fill(pending.events.emplace_back());
    pending.added();
    advance(event_ns);
  }
  // Another event of the thread that is no node (a pop, a start/end, a mark).
  void advance(uint64_t event_ns) { latest_ = std::max(latest_, event_ns); }
  // The pop of push `id`. False: it does not fit what was walked.
  bool set_end(uint32_t id, uint64_t end_ns) {
    // Pops come in the reverse order of pushes: the range is most often the
    // last one waiting.
    std::vector<StreamEvent>& pushes = pushes_.events;
    if (pushes.size() > pushes_.head) {
      CpuNode& n = pushes.back().node;
      if (n.id == id && n.end_ns == kOpenEnd) {
        n.end_ns = std::max(end_ns, n.start_ns);
        // Its place among pushes that start at the same time may change.
        if (pushes.size() > pushes_.head + 1 &&
            pushes[pushes.size() - 2].node.start_ns == n.start_ns)
          pushes_.unsort();
        return true;
      }
    }
    return set_end_aside(id, end_ns);
  }
  // The frame has been read: walks what can be. False: out of order.
  bool end_frame() { return release(false); }
  // Ask WalkedEvents::ready() before each walk, holding up to `limit`
  // events: a row that depends on something read after the event. With
  // `shared`, the limit is of the events every stream given it holds (the
  // count there; each updates it as it releases).
  void hold_until_ready(size_t limit, size_t* shared = nullptr) {
    hold_limit_ = limit;
    shared_held_ = shared;
  }
  // Walks what is left and closes everything; open ranges must have been
  // given an end.
  bool finish();
  NestingWalk& walk() { return walk_; }

 private:
  // Events not yet walked, calls and pushes apart: each comes in walk order
  // but for ties (a call that starts where the one before it did), so a
  // frame's events are merged, seldom sorted. Events held back
  // (hold_until_ready) stay across frames: the walked ones before `head`
  // are dropped once they are as many as those left, and a frame's events
  // are sorted among themselves and merged with those, not sorted again.
  struct Pending {
    std::vector<StreamEvent> events;
    size_t head = 0;  // events before it were walked
    bool sorted = true;
    size_t sorted_to = 0;  // when !sorted: [head, sorted_to) is in order
    void add(const StreamEvent& event) {
      if (events.size() > head && walks_before(event.node, events.back().node))
        unsorted_from(events.size());
      events.push_back(event);
    }
    // The last event was put in place.
    void added() {
      const size_t n = events.size();
      if (n > head + 1 && walks_before(events[n - 1].node, events[n - 2].node))
        unsorted_from(n - 1);
    }
    void unsorted_from(size_t index) {
      if (!sorted) return;
      sorted = false;
      sorted_to = index;
    }
    // An event's place may have changed: all of them are sorted again.
    void unsort() {
      sorted = false;
      sorted_to = head;
    }
    void sort();
    // The events before `walked` were walked.
    void drop(size_t walked);
  };

  bool release(bool all);
  // set_end() for a range that is not the last one waiting.
  bool set_end_aside(uint32_t id, uint64_t end_ns);
  bool walk(const StreamEvent& event);

  NestingWalk walk_;
  WalkedEvents& walked_;
  Pending calls_;
  Pending pushes_;
  uint64_t latest_ = 0;
  size_t hold_limit_ = 0;          // 0: no ready() questions
  size_t* shared_held_ = nullptr;  // hold_until_ready()
  size_t held_ = 0;                // of *shared_held_: this stream's, at its last release
  bool walked_any_ = false;
  CpuNode last_walked_{};
};

}  // namespace gprof::analysis
