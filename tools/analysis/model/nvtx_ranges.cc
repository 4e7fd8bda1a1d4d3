#include "tools/analysis/model/nvtx_ranges.h"

#include <algorithm>

namespace gprof::analysis {

RangeCounts& RangeCounts::operator+=(const RangeCounts& other) {
  push_pop += other.push_pop;
  start_end += other.start_end;
  marks += other.marks;
  unbalanced_pops += other.unbalanced_pops;
  ends_without_start += other.ends_without_start;
  open_at_exit += other.open_at_exit;
  cross_thread += other.cross_thread;
  return *this;
}

void RangePairing::add(const RangeEvent& e) {
  switch (e.op) {
    case RangeOp::kPush:
      stacks_[{e.tid, e.domain}].push_back(Opened{range_opened_by(e), seq_++});
      break;
    case RangeOp::kPop: {
      auto it = stacks_.find({e.tid, e.domain});
      if (it == stacks_.end() || it->second.empty()) {
        ++counts_.unbalanced_pops;
        break;
      }
      Opened opened = it->second.back();
      it->second.pop_back();
      // A clock that stepped back must not make a negative duration.
      opened.range.end_ns = std::max(e.time_ns, opened.range.start_ns);
      opened.range.end_tid = e.tid;
      done_.push_back(opened);
      break;
    }
    case RangeOp::kStart:
      starts_.push_back(
          Start{e.range_id, e.time_ns, seq_++, e.tid, e.name, e.domain, e.seq, e.op_id});
      break;
    case RangeOp::kEnd:
      ends_.push_back(End{e.range_id, e.time_ns, e.tid});
      break;
    case RangeOp::kMark:
      done_.push_back(Opened{range_opened_by(e), seq_++});
      break;
    case RangeOp::kNameThread:
      thread_names_[static_cast<uint32_t>(e.range_id)] = e.name;
      break;
    case RangeOp::kNameCategory:
      break;  // categories name nothing the tables show
  }
}

void RangePairing::pair_start_end(uint64_t last_ns) {
  std::sort(starts_.begin(), starts_.end(), [](const Start& a, const Start& b) {
    return a.id != b.id             ? a.id < b.id
           : a.time_ns != b.time_ns ? a.time_ns < b.time_ns
                                    : a.seq < b.seq;
  });
  std::stable_sort(ends_.begin(), ends_.end(), [](const End& a, const End& b) {
    return a.id != b.id ? a.id < b.id : a.time_ns < b.time_ns;
  });
  size_t s = 0;
  size_t e = 0;
  pair_sorted_start_end<Start, End>(
      [&](Start& out) { return s < starts_.size() && (out = starts_[s++], true); },
      [&](End& out) { return e < ends_.size() && (out = ends_[e++], true); }, last_ns, counts_,
      [&](const Range& r, const Start& start) {
        done_.push_back(Opened{r, start.seq});
      });
  starts_.clear();
  ends_.clear();
}

std::vector<Range> RangePairing::finish(uint64_t last_ns, RangeCounts& counts) {
  for (auto& [thread, stack] : stacks_) {
    for (Opened& opened : stack) {
      opened.range.end_ns = std::max(last_ns, opened.range.start_ns);
      opened.range.end_tid = opened.range.tid;
      opened.range.open_at_exit = true;
      ++counts_.open_at_exit;
      done_.push_back(opened);
    }
  }
  stacks_.clear();
  pair_start_end(last_ns);
  std::sort(done_.begin(), done_.end(),
            [](const Opened& a, const Opened& b) { return a.seq < b.seq; });
  std::vector<Range> out;
  out.reserve(done_.size());
  for (const Opened& opened : done_) {
    switch (opened.range.kind) {
      case RangeKind::kPushPop:
        ++counts_.push_pop;
        break;
      case RangeKind::kStartEnd:
        ++counts_.start_end;
        break;
      case RangeKind::kMark:
        ++counts_.marks;
        break;
    }
    out.push_back(opened.range);
  }
  done_.clear();
  counts += counts_;
  counts_ = RangeCounts{};
  return out;
}

}  // namespace gprof::analysis
