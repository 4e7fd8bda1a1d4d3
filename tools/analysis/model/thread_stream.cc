#include "tools/analysis/model/thread_stream.h"

#include <algorithm>

namespace gprof::analysis {

void ThreadStream::Pending::sort() {
  if (sorted) return;
  const auto before = [](const StreamEvent& a, const StreamEvent& b) {
    return walks_before(a.node, b.node);
  };
  const auto first = events.begin() + static_cast<std::ptrdiff_t>(head);
  const auto middle = events.begin() + static_cast<std::ptrdiff_t>(std::max(sorted_to, head));
  std::stable_sort(middle, events.end(), before);
  // Stable: of equal events, the earlier added (in the sorted part) first,
  // as one stable sort of them all.
  std::inplace_merge(first, middle, events.end(), before);
  sorted = true;
}

void ThreadStream::Pending::drop(size_t walked) {
  head = walked;
  if (head < events.size() - head) return;  // moving the rest costs more than it frees
  events.erase(events.begin(), events.begin() + static_cast<std::ptrdiff_t>(head));
  head = 0;
}

bool ThreadStream::release(bool all) {
  calls_.sort();
  pushes_.sort();
  std::vector<StreamEvent>& calls = calls_.events;
  std::vector<StreamEvent>& pushes = pushes_.events;
  size_t c = calls_.head;
  size_t p = pushes_.head;
  // Held by the other streams sharing the hold.
  const size_t others = shared_held_ != nullptr ? *shared_held_ - held_ : 0;
  const StreamEvent* last = nullptr;
  for (;;) {
    const bool have_call = c < calls.size();
    const bool have_push = p < pushes.size();
    if (!have_call && !have_push) break;
    const bool push_first =
        have_push && (!have_call || walks_before(pushes[p].node, calls[c].node));
    StreamEvent& next = push_first ? pushes[p] : calls[c];
    if (!all && next.node.start_ns >= latest_) break;
    if (hold_limit_ != 0) {
      const bool must = all || others + calls.size() - c + pushes.size() - p >= hold_limit_;
      if (!walked_.ready(next, must) && !must) break;
    }
    // The merge of two sorted lists gives each event after the one before
    // it: only the first of a release can come before what an earlier one
    // walked (and then it is the smallest of those that do).
    if (last == nullptr && walked_any_ && !walks_before(last_walked_, next.node)) return false;
    if (!walk(next)) return false;
    last = &next;
    ++(push_first ? p : c);
  }
  if (last != nullptr) {
    walked_any_ = true;
    last_walked_ = last->node;
  }
  if (shared_held_ != nullptr) {
    held_ = calls.size() - c + pushes.size() - p;
    *shared_held_ = others + held_;
  }
  calls_.drop(c);
  pushes_.drop(p);
  return true;
}

inline bool ThreadStream::walk(const StreamEvent& event) {
  const WalkVisit visit = walk_.visit(event.node);
  return walked_.walked(event, visit, walk_);
}

bool ThreadStream::set_end_aside(uint32_t id, uint64_t end_ns) {
  std::vector<StreamEvent>& pushes = pushes_.events;
  for (size_t i = pushes.size(); i-- > pushes_.head;) {
    CpuNode& n = pushes[i].node;
    if (n.id != id || n.end_ns != kOpenEnd) continue;
    n.end_ns = std::max(end_ns, n.start_ns);
    // Its place among pushes that start at the same time may change.
    if ((i > pushes_.head && pushes[i - 1].node.start_ns == n.start_ns) ||
        (i + 1 < pushes.size() && pushes[i + 1].node.start_ns == n.start_ns))
      pushes_.unsort();
    return true;
  }
  if (walk_.set_end(id, end_ns) != NestingWalk::SetEnd::kDone) return false;
  if (walked_any_ && last_walked_.id == id && (last_walked_.flags & kNodeRange))
    last_walked_.end_ns = std::max(end_ns, last_walked_.start_ns);
  return true;
}

bool ThreadStream::finish() {
  if (!release(true)) return false;
  walk_.close_all();
  return true;
}

}  // namespace gprof::analysis
