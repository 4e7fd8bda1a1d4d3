#include "tools/analysis/aggregate/call_work_groups.h"

#include <stdexcept>

namespace gprof::analysis {

void CallWorkGroups::finish() {
  auto late = late_.sorted();
  auto pending = pending_.sorted();
  Pending w{}, p{};
  bool has_p = pending.next(p);
  // late() took a record only for an id pushed() kept: each finds its call.
  for (bool has_w = late.next(w); has_w; has_w = late.next(w)) {
    while (has_p && p.correlation < w.correlation) has_p = pending.next(p);
    if (!has_p || p.correlation != w.correlation)
      throw std::logic_error("CallWorkGroups: late work of a call not kept");
    found(p.value, w.value);
  }
  waiting_.clear();
  read_.emplace(groups_.sorted());
  has_next_ = read_->next(next_);
}

std::optional<uint64_t> CallWorkGroups::group(uint64_t call) {
  while (has_next_ && next_.call < call) has_next_ = read_->next(next_);
  if (!has_next_ || next_.call != call) return std::nullopt;
  return next_.value;
}

}  // namespace gprof::analysis
