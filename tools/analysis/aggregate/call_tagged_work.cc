#include "tools/analysis/aggregate/call_tagged_work.h"

#include <algorithm>

namespace gprof::analysis {

void CallTaggedWork::place(const HeldGpu& work, CallSlots::Gpu pairing) {
  const uint64_t id = work.correlation;
  if (pairing == CallSlots::Gpu::kLate) {
    const uint32_t tag = blocks_.find(id);
    if (tag != PushedBlocks::kNone)
      sink_.count(work, tag);
    else
      late_.add(work);
  } else if (pairing == CallSlots::Gpu::kOpened || (!at_walk_ && slots_.has_call(id)))
    sink_.count(work, slots_.tag(id));
  else if (id == 0 || slots_.gave_up(id))
    sink_.without_call(work);
  else {
    waiting_[id].push_back(work);
    if (waiting_.size() > sweep_above_) give_up_waiting();
  }
}

void CallTaggedWork::renamed(uint64_t from, uint64_t to, CallSlots::Gpu outcome) {
  auto node = waiting_.extract(from);
  if (node.empty()) return;
  for (HeldGpu& h : node.mapped()) {
    h.correlation = to;
    place(h, outcome);
  }
}

// Ids CallSlots gave up on will never see their call: their work leaves,
// and the table stays about as large as CallSlots' waiting ids.
void CallTaggedWork::give_up_waiting() {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (!slots_.gave_up(it->first)) {
      ++it;
      continue;
    }
    for (const HeldGpu& h : it->second) sink_.without_call(h);
    it = waiting_.erase(it);
  }
  sweep_above_ = std::max(kSweep, 2 * waiting_.size());
}

void CallTaggedWork::no_more_calls() {
  for (const auto& [id, work] : waiting_)
    for (const HeldGpu& h : work) sink_.without_call(h);
  waiting_.clear();
}

bool CallTaggedWork::join_late() {
  auto late = late_.sorted();
  auto tags = pushed_tags_.sorted();
  Tag t{};
  bool has_tag = tags.next(t);
  for (HeldGpu h; late.next(h);) {
    // Work that came before its call was pushed, into a block in memory.
    const uint32_t tag = blocks_.find(h.correlation);
    if (tag != PushedBlocks::kNone) {
      sink_.count(h, tag);
      continue;
    }
    while (has_tag && t.correlation < h.correlation) has_tag = tags.next(t);
    if (!has_tag || t.correlation != h.correlation) return false;
    sink_.count(h, t.tag);
  }
  return true;
}

}  // namespace gprof::analysis
