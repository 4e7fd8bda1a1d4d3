#include "tools/analysis/model/range_stream.h"

#include <algorithm>

namespace gprof::analysis {
namespace {

// Crossable ranges kept before a thread looks again at which still matter.
constexpr size_t kPruneAt = 64;

}  // namespace

RangeStream::RangeStream(size_t sort_memory, Emit emit)
    : emit_(std::move(emit)),
      starts_(analysis::SpillSorter<Start, ByIdTime>::records_in(sort_memory)),
      ends_(analysis::SpillSorter<End, ByIdTime>::records_in(sort_memory)) {}

std::vector<RangeStream::Open>* RangeStream::Thread::stack(uint32_t domain, bool make) {
  for (auto& [d, s] : stacks)
    if (d == domain) return &s;
  if (!make) return nullptr;
  return &stacks.emplace_back(domain, std::vector<Open>()).second;
}

bool RangeStream::Thread::crosses(Span b) const {
  for (const Span& n : crossable)
    if (n.first < b.first && b.first < n.second && n.second < b.second) return true;
  return false;
}

// Whether a range still open started inside `n` (after it, before its end):
// one that may end after n and so cross it. Each stack's starts increase
// from the bottom, so only its top ones can have started after n.
bool RangeStream::Thread::opened_inside(Span n) const {
  for (const auto& [domain, s] : stacks)
    for (auto it = s.rbegin(); it != s.rend() && it->range.start_ns > n.first; ++it)
      if (it->range.start_ns < n.second) return true;
  return false;
}

RangeStream::Thread& RangeStream::thread(uint32_t tid) {
  // Runs of one thread's events are the rule: no hash lookup.
  if (last_thread_.second != nullptr && last_thread_.first == tid) return *last_thread_.second;
  Thread& t = threads_[tid];  // references to elements survive rehashing
  last_thread_ = {tid, &t};
  return t;
}

void RangeStream::opened(uint32_t tid) {
  // Runs of one thread's ranges: no lookup (try_emplace hashes each time).
  if (last_opened_ == tid && !first_opened_.empty()) return;
  first_opened_.try_emplace(tid, next_);
  last_opened_ = tid;
}

void RangeStream::add(const RangeEvent& e) {
  switch (e.op) {
    case RangeOp::kPush: {
      opened(e.tid);
      const Open o{analysis::range_opened_by(e), next_++};
      Thread& t = thread(e.tid);
      t.stack(e.domain, true)->push_back(o);
      ++t.open;
      break;
    }
    case RangeOp::kPop:
      pop(e);
      break;
    case RangeOp::kStart:
      opened(e.tid);
      starts_.add(Start{e.range_id, e.time_ns, next_++, e.seq, e.op_id, e.tid, e.name, e.domain});
      break;
    case RangeOp::kEnd:
      ends_.add(End{e.range_id, e.time_ns, e.tid});
      break;
    case RangeOp::kMark:
      opened(e.tid);
      ++counts_.marks;
      emit_(analysis::range_opened_by(e), next_++, false);
      break;
    case RangeOp::kNameThread:
      thread_names_[static_cast<uint32_t>(e.range_id)] = e.name;
      break;
    case RangeOp::kNameCategory:
      break;  // categories name nothing the tables show
  }
}

void RangeStream::pop(const RangeEvent& e) {
  Thread& t = thread(e.tid);
  std::vector<Open>* s = t.stack(e.domain, false);
  if (s == nullptr || s->empty()) {
    ++counts_.unbalanced_pops;
    return;
  }
  Open o = s->back();
  s->pop_back();
  --t.open;
  // A clock that stepped back must not make a negative duration.
  o.range.end_ns = std::max(e.time_ns, o.range.start_ns);
  o.range.end_tid = e.tid;
  ++counts_.push_pop;
  const bool crossing = close(t, o.range);
  emit_(o.range, o.number, crossing);
}

bool RangeStream::close(Thread& t, const analysis::Range& r) {
  const Span span{r.start_ns, r.end_ns};
  const bool crossing = t.crosses(span);
  if (t.open == 0) {
    t.crossable.clear();  // nothing open is left to cross them
    return crossing;
  }
  if (!crossing && t.opened_inside(span)) t.crossable.push_back(span);
  if (t.crossable.size() > std::max(kPruneAt, t.prune_at)) {
    std::erase_if(t.crossable, [&](const Span& n) { return !t.opened_inside(n); });
    t.prune_at = 2 * t.crossable.size();
  }
  return crossing;
}

void RangeStream::finish(uint64_t last_ns, analysis::RangeCounts& counts) {
  // Open ranges end when the process did; none of them can be what another
  // crosses (they all end last).
  for (auto& [tid, t] : threads_) {
    for (auto& [domain, s] : t.stacks) {
      for (Open& o : s) {
        o.range.end_ns = std::max(last_ns, o.range.start_ns);
        o.range.end_tid = o.range.tid;
        o.range.open_at_exit = true;
        ++counts_.open_at_exit;
        ++counts_.push_pop;
        emit_(o.range, o.number, t.crosses({o.range.start_ns, o.range.end_ns}));
      }
      s.clear();
    }
    t.open = 0;
    t.crossable.clear();
  }
  pair_start_end(last_ns);
  counts += counts_;
  counts_ = analysis::RangeCounts{};
}

// The rule of RangePairing (pair_sorted_start_end), on sorted temporary files.
void RangeStream::pair_start_end(uint64_t last_ns) {
  if (starts_.size() == 0 && ends_.size() == 0) return;
  auto starts = starts_.sorted();
  auto ends = ends_.sorted();
  analysis::pair_sorted_start_end<Start, End>([&](Start& s) { return starts.next(s); },
                                              [&](End& e) { return ends.next(e); }, last_ns,
                                              counts_,
                                              [&](const analysis::Range& r, const Start& start) {
                                                ++counts_.start_end;
                                                emit_(r, start.number, false);
                                              });
}

}  // namespace gprof::analysis
