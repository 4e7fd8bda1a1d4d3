#include "tools/analysis/model/thread_stream.h"

#include <algorithm>

namespace gprof::analysis {

bool walks_before(const CpuNode& a, const CpuNode& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
  // The same interval: a range encloses the call it annotates.
  const bool a_range = a.flags & kNodeRange;
  const bool b_range = b.flags & kNodeRange;
  if (a_range != b_range) return a_range;
  return a.id < b.id;
}

void ThreadStream::add(const StreamEvent& event, uint64_t event_ns) {
  if ((event.node.flags & kNodeRange) && event.node.end_ns == kOpenEnd)
    open_pending_[event.node.id] = pending_.size();
  pending_.push_back(event);
  advance(event_ns);
}

bool ThreadStream::release(bool all) {
  if (pending_.empty()) return true;
  std::stable_sort(
      pending_.begin(), pending_.end(),
      [](const StreamEvent& a, const StreamEvent& b) { return walks_before(a.node, b.node); });
  size_t n = 0;
  while (n < pending_.size() && (all || pending_[n].node.start_ns < latest_)) {
    if (walked_any_ && !walks_before(last_walked_, pending_[n].node)) return false;
    if (!walk(pending_[n])) return false;
    ++n;
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
  open_pending_.clear();
  for (size_t i = 0; i < pending_.size(); ++i)
    if ((pending_[i].node.flags & kNodeRange) && pending_[i].node.end_ns == kOpenEnd)
      open_pending_[pending_[i].node.id] = i;
  return true;
}

bool ThreadStream::walk(const StreamEvent& event) {
  const WalkVisit visit = walk_.visit(event.node);
  walked_any_ = true;
  last_walked_ = event.node;
  return walked_(event, visit, walk_);
}

bool ThreadStream::set_end(uint32_t id, uint64_t end_ns) {
  auto it = open_pending_.find(id);
  if (it != open_pending_.end()) {
    CpuNode& n = pending_[it->second].node;
    n.end_ns = std::max(end_ns, n.start_ns);
    open_pending_.erase(it);
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
