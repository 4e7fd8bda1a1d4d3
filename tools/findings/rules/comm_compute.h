// Communication against compute on one GPU timeline: which kernels are
// collectives (NCCL's), and the time they ran with no compute kernel beside
// them, swept in one pass over GPU work by start (Timeline::work's order, as
// the streamed analysis reads it too), holding only what is still open.
// HTA's comm_comp_overlap asks the same question of kineto traces.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace gprof::findings {

// NCCL's kernels, whose names begin with "nccl":
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL" (NCCL 2.19 and later),
// "ncclKernel_AllReduce_RING_LL_Sum_float" (before), RCCL's alike; torch's
// collectives all run through them. Not yet seen on a real GPU (no NCCL run
// recorded so far; scripts/gpu-check lists the names it sees).
bool is_communication(std::string_view kernel_name);

// is_communication of a file's row names (Timeline::names), each looked at
// once: demangled names run to hundreds of characters, and a file has
// millions of kernels of a few hundred names.
class CollectiveNames {
 public:
  void clear() { known_.clear(); }
  bool is(const std::vector<std::string>& names, uint32_t name) {
    if (name >= names.size()) return false;
    if (name >= known_.size()) known_.resize(names.size(), kUnknown);
    if (known_[name] == kUnknown) known_[name] = is_communication(names[name]) ? kYes : kNo;
    return known_[name] == kYes;
  }

 private:
  enum : uint8_t { kUnknown, kNo, kYes };
  std::vector<uint8_t> known_;
};

struct Segment {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t tag = 0;  // exposed pieces: the tag of the communication kernel that opened them
  uint64_t length() const { return end_ns - start_ns; }
};

class CommComputeSweep {
 public:
  // Work by start. `tag`: the caller's name for a communication kernel,
  // given back with the exposed pieces of the stretch it opened.
  void add(uint64_t start_ns, uint64_t end_ns, bool communication, uint64_t tag = 0);
  // After the last add: closes what is open.
  void finish();

  // What became final, by start; the caller reads and clears them.
  std::vector<Segment> compute;  // the union of the compute kernels
  std::vector<Segment> exposed;  // communication with no compute beside it
  std::vector<Segment> busy;     // the union of all work

  uint64_t communication_ns() const { return communication_ns_; }  // their union's length
  // The tag of the first kernel of the oldest stretch of communication not
  // settled yet (UINT64_MAX: none): kernels tagged before it are done with.
  uint64_t oldest_unsettled_tag() const {
    if (!pending_communication_.empty()) return pending_communication_.front().tag;
    return communication_.open ? communication_.current.tag : UINT64_MAX;
  }

 private:
  // Intervals by start, joined where they overlap or touch.
  struct Union {
    bool open = false;
    Segment current;
    // The segment the interval closed, if it closed one.
    bool add(uint64_t start_ns, uint64_t end_ns, uint64_t tag, Segment& closed);
  };
  void settle(bool last);

  Union compute_, communication_, busy_;
  std::deque<Segment> pending_compute_, pending_communication_;
  uint64_t position_ = 0;  // the latest start: no later work starts before it
  uint64_t communication_ns_ = 0;
};

}  // namespace gprof::findings
