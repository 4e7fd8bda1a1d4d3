#include "tools/analysis/model/nesting_walk.h"

#include <algorithm>

namespace gprof::analysis {

WalkVisit NestingWalk::visit(const CpuNode& n) {
  WalkVisit out;
  if (n.flags & kNodeDetached) {
    detached(n, out);
    return out;
  }
  // Close what cannot enclose `n`: it ended before `n` starts, or it ends
  // before `n` does (an open range ends after everything that came so far).
  while (!stack_.empty()) {
    const CpuNode& parent = stack_.back().node;
    if (n.start_ns < parent.end_ns && n.end_ns <= parent.end_ns) break;
    close_top();
  }
  open(n, out);
  return out;
}

[[gnu::always_inline]] inline void NestingWalk::open(const CpuNode& n, WalkVisit& out) {
  // Made in place: an Open is large, and one is made per event.
  Open& o = stack_.emplace_back(n);
  if (n.end_ns == kOpenEnd) open_ranges_.push_back(static_cast<uint32_t>(stack_.size() - 1));
  // Pointers, not indices: an Open's size is no power of two, and a size()
  // divides by it.
  Open* parent = &o != stack_.data() ? &o - 1 : nullptr;
  const bool in_range = (n.flags & (kNodeScopeRoot | kNodeInWindow)) ||
                        (parent != nullptr && (parent->result & kResultInRange));
  const bool under_range =
      parent != nullptr && (range(parent->node) || (parent->result & kResultUnderRange));
  o.kept = (!rules_.range_filter || in_range) && (!rules_.top_level_only || parent == nullptr);
  o.result =
      static_cast<uint8_t>((in_range ? kResultInRange : 0) | (under_range ? kResultUnderRange : 0) |
                           (o.kept ? kResultKept : 0));
  // An open range's length is added to its parent by set_end.
  if (parent != nullptr && n.end_ns != kOpenEnd) parent->children_ns += n.end_ns - n.start_ns;
  if (o.kept) {
    o.key = rows_.key_of(n);
    uint32_t& open = open_of(o.key);
    o.counts_totals = open == 0;
    ++open;
    ++rows_.row_of(o.key).count;
  }
  if (contexts_ != nullptr) {
    if (range(n)) {
      // What reaches this range's CUDA total reaches the rows that
      // close_top would add it to, here and above.
      WalkTarget extra[1];
      uint32_t count = 0;
      if (o.kept && o.counts_totals) extra[count++] = {o.key, WalkField::kDeviceTotal};
      o.chain = contexts_->extend(parent ? parent->chain : WalkContexts::kNone, extra, count);
    } else {
      call_context(o, parent, out);
    }
  }
  out.result = o.result;
}

// A call adds its GPU time to its own row (issued) and, through its
// parent, to a range's self CUDA and the totals above.
void NestingWalk::call_context(Open& o, Open* parent, WalkVisit& out) {
  if (parent != nullptr && parent->call_chain == kUnknown) {
    WalkTarget extra[1];
    uint32_t count = 0;
    if (parent->kept && range(parent->node)) extra[count++] = {parent->key, WalkField::kSelfDevice};
    parent->call_chain = contexts_->extend(parent->chain, extra, count);
  }
  o.chain = parent ? parent->call_chain : WalkContexts::kNone;
  if (!o.kept) {
    out.context = o.chain;
    return;
  }
  uint32_t& key = parent ? parent->last_call_key : top_call_key_;
  uint32_t& context = parent ? parent->last_call_context : top_call_context_;
  if (key != o.key) {
    const WalkTarget issued{o.key, WalkField::kIssued};
    context = contexts_->extend(o.chain, &issued, 1);
    key = o.key;
  }
  out.context = context;
}

NestingWalk::SetEnd NestingWalk::set_end(uint32_t id, uint64_t end_ns) {
  for (size_t k = open_ranges_.size(); k-- > 0;) {
    const size_t i = open_ranges_[k];
    Open& o = stack_[i];
    CpuNode& n = o.node;
    if (n.id != id || !range(n)) continue;
    const uint64_t end = std::max(end_ns, n.start_ns);
    // What a sort by start would have nested: starts before the end, ends
    // no later.
    const auto fits = [end](uint64_t start, uint64_t child_end) {
      return start < end && child_end <= end;
    };
    if (o.any_child && !fits(o.max_child_start, o.max_child_end)) return SetEnd::kMisnested;
    // Of the events above it on the stack, each fits in the one below it
    // (visit() opens nothing else, and an end given later is checked here),
    // so the first of them fits if all do.
    if (i + 1 < stack_.size() && !fits(stack_[i + 1].node.start_ns, stack_[i + 1].node.end_ns))
      return SetEnd::kMisnested;
    n.end_ns = end;
    open_ranges_.erase(open_ranges_.begin() + static_cast<std::ptrdiff_t>(k));
    if (i > 0) stack_[i - 1].children_ns += n.end_ns - n.start_ns;
    return SetEnd::kDone;
  }
  return SetEnd::kNotOpen;
}

std::vector<WalkTarget> NestingWalk::memory_targets() const {
  std::vector<WalkTarget> out;
  if (stack_.empty()) return out;
  const Open& top = stack_.back();
  if (top.kept) {
    out.push_back({top.key, WalkField::kSelfMemory});
    if (top.counts_totals) out.push_back({top.key, WalkField::kTotalMemory});
  }
  for (size_t i = stack_.size() - 1; i-- > 0;) {
    const Open& a = stack_[i];
    if (a.kept && range(a.node) && !range(stack_[i + 1].node))
      out.push_back({a.key, WalkField::kSelfMemory});
    if (a.kept && a.counts_totals) out.push_back({a.key, WalkField::kTotalMemory});
  }
  return out;
}

void NestingWalk::mark_contexts(WalkContexts& contexts) const {
  for (const Open& o : stack_) {
    contexts.mark(o.chain);
    if (o.call_chain != kUnknown) contexts.mark(o.call_chain);
    if (o.last_call_key != kUnknown) contexts.mark(o.last_call_context);
  }
  if (top_call_key_ != kUnknown) contexts.mark(top_call_context_);
}

void NestingWalk::rename_contexts(const std::vector<uint32_t>& renamed) {
  for (Open& o : stack_) {
    o.chain = renamed[o.chain];
    if (o.call_chain != kUnknown) o.call_chain = renamed[o.call_chain];
    if (o.last_call_key != kUnknown) o.last_call_context = renamed[o.last_call_context];
  }
  if (top_call_key_ != kUnknown) top_call_context_ = renamed[top_call_context_];
}

void NestingWalk::close_all() {
  while (!stack_.empty()) close_top();
  open_ranges_.clear();
}

[[gnu::always_inline]] inline void NestingWalk::close_top() {
  // Popped at the end: `o` is read in place.
  Open& o = stack_.back();
  const CpuNode& n = o.node;
  const uint64_t duration = n.end_ns - n.start_ns;
  if (o.kept) {
    RowValues& row = rows_.row_of(o.key);
    row.self_cpu_ns += o.children_ns < duration ? duration - o.children_ns : 0;
    // As torch appends a kernel to the op that launched it and never to
    // the runtime event, an API call's GPU work is its range's CUDA time;
    // the call keeps it apart, for the api view's own columns.
    const bool api_call = !range(n);
    if (api_call)
      row.issued_device_ns += o.self_device_ns;
    else
      row.self_device_ns += o.self_device_ns;
    row.self_device_mem += o.self_device_mem;
    row.self_cpu_mem += o.self_host_mem;
    if (o.counts_totals) {
      row.cpu_total_ns += duration;
      if (!api_call) row.device_total_ns += o.device_total_ns;
      row.device_mem += o.device_mem;
      row.cpu_mem += o.host_mem;
    }
    --open_of(o.key);
  }
  if (&o == stack_.data()) {
    stack_.pop_back();
    return;
  }
  Open& parent = *(&o - 1);
  parent.any_child = true;
  parent.max_child_start = std::max(parent.max_child_start, n.start_ns);
  parent.max_child_end = std::max(parent.max_child_end, n.end_ns);
  parent.device_total_ns += o.device_total_ns;
  parent.device_mem += o.device_mem;
  parent.host_mem += o.host_mem;
  // A range's own share is what the calls directly inside it did.
  if (range(parent.node) && !range(n)) {
    parent.self_device_ns += o.device_total_ns;
    parent.self_device_mem += o.device_mem;
    parent.self_host_mem += o.host_mem;
  }
  stack_.pop_back();
}

uint32_t& NestingWalk::open_new(uint32_t key) {
  if (key >= kDenseKeys) return open_sparse(key);
  open_per_key_.resize(size_t{key} + 1, 0);
  return open_per_key_[key];
}

uint32_t& NestingWalk::open_sparse(uint32_t key) {
  auto it = open_sparse_.find(key);
  if (it != open_sparse_.end()) return it->second;
  // Those at zero make room, once they are as many as the open ones.
  if (open_sparse_.size() > 2 * stack_.size() + 64)
    std::erase_if(open_sparse_, [](const auto& e) { return e.second == 0; });
  return open_sparse_.emplace(key, 0).first->second;
}

void NestingWalk::detached(const CpuNode& n, WalkVisit& out) {
  const bool in_range = n.flags & (kNodeScopeRoot | kNodeInWindow);
  const bool kept = !rules_.range_filter || in_range;
  out.result = static_cast<uint8_t>((in_range ? kResultInRange : 0) | (kept ? kResultKept : 0));
  if (!kept) return;
  const uint64_t duration = n.end_ns - n.start_ns;
  RowValues& row = rows_.row_of(rows_.key_of(n));
  ++row.count;
  row.self_cpu_ns += duration;
  row.cpu_total_ns += duration;
}

}  // namespace gprof::analysis
