#include "tools/analysis/model/call_slots.h"

namespace gprof::analysis {

CallSlots::CallSlots(uint32_t bits, size_t waiting_limit)
    : mask_((uint64_t{1} << bits) - 1), waiting_limit_(waiting_limit), slots_(size_t{1} << bits) {}

void CallSlots::clear() {
  slots_.assign(slots_.size(), Slot{});
  pushed_out_.clear();
  given_up_.clear();
  waiting_.clear();
  waiting_order_.clear();
  unwalked_.clear();
  if (!tags_.empty()) tags_.assign(tags_.size(), 0);
  tags_aside_.clear();
  pushed_.clear();
  given_up_records_ = zero_id_records_ = 0;
}

// A call not walked yet (its thread's last, waiting for the thread's next
// event) keeps its place aside; a walked one is pushed out.
void CallSlots::vacate(const Slot& slot) {
  if (slot.correlation == 0) return;
  if (!slot.opened) {
    unwalked_.emplace(slot.correlation, slot);
    if (!tags_.empty()) tags_aside_[slot.correlation] = tag_at(slot.correlation);
    return;
  }
  pushed_out_.set(slot.correlation);
  if (slot.expect == Expect::kMany || (slot.expect == Expect::kOne && !slot.received))
    pushed_.push_back(Pushed{slot.correlation, slot.context, tag_at(slot.correlation)});
}

uint32_t CallSlots::tag(uint64_t correlation) const {
  if (tags_.empty()) return 0;
  if (slots_[correlation & mask_].correlation == correlation) return tags_[correlation & mask_];
  if (auto it = tags_aside_.find(correlation); it != tags_aside_.end()) return it->second;
  auto it = waiting_.find(correlation);
  return it == waiting_.end() ? 0 : it->second.tag;
}

void CallSlots::set_tag(uint64_t correlation, uint32_t tag) {
  if (tags_.empty()) return;
  if (slots_[correlation & mask_].correlation == correlation)
    tags_[correlation & mask_] = tag;
  else if (unwalked_.contains(correlation))
    tags_aside_[correlation] = tag;
  else if (auto it = waiting_.find(correlation); it != waiting_.end())
    it->second.tag = tag;
}

bool CallSlots::add_call(uint64_t correlation, Expect expect, uint32_t tag) {
  Slot& slot = slots_[correlation & mask_];
  // The tables aside are most often empty: no hashing then.
  if (slot.correlation == correlation || (!unwalked_.empty() && unwalked_.contains(correlation)))
    return false;  // two calls, one id
  if (pushed_out_.test(correlation) || given_up_.test(correlation)) return false;
  vacate(slot);
  slot = Slot{};
  slot.correlation = correlation;
  slot.expect = expect;
  if (!tags_.empty()) tags_[correlation & mask_] = tag;
  if (waiting_.empty()) return true;
  auto it = waiting_.find(correlation);
  if (it != waiting_.end()) {
    slot.received = true;
    wait(slot, it->second.gpu_ns);
    if (!tags_.empty() && it->second.tag != 0) tags_[correlation & mask_] = it->second.tag;
    waiting_.erase(it);  // its place in waiting_order_ is skipped later
  }
  return true;
}

CallSlots::Slot* CallSlots::find(uint64_t correlation) {
  Slot& slot = slots_[correlation & mask_];
  if (slot.correlation == correlation) return &slot;
  auto it = unwalked_.find(correlation);
  return it == unwalked_.end() ? nullptr : &it->second;
}

bool CallSlots::opened_aside(uint64_t correlation, uint32_t context, uint64_t& gpu_ns) {
  Slot* found = find(correlation);
  if (found == nullptr) return false;
  if (found != &slots_[correlation & mask_]) {
    // Walked at last: it goes to the walked calls' table (pushing out
    // whatever walked call holds its place), not back to its old slot.
    Slot moved = *found;
    unwalked_.erase(correlation);
    Slot& slot = slots_[correlation & mask_];
    vacate(slot);
    slot = moved;
    if (!tags_.empty()) {
      auto tag = tags_aside_.find(correlation);
      tags_[correlation & mask_] = tag == tags_aside_.end() ? 0 : tag->second;
      if (tag != tags_aside_.end()) tags_aside_.erase(tag);
    }
    found = &slot;
  }
  Slot& slot = *found;
  gpu_ns = slot.gpu_ns;
  slot.gpu_ns = 0;
  slot.context = context;
  slot.opened = true;
  return true;
}

// gpu() found no call in the id's slot, or id 0.
CallSlots::Gpu CallSlots::gpu_without_call(uint64_t correlation, uint64_t ns, uint32_t& context) {
  if (correlation == 0) {
    ++zero_id_records_;
    return Gpu::kWaiting;
  }
  if (Slot* slot = find(correlation)) {
    slot->received = true;
    if (slot->opened) return opened_gpu(*slot, ns, context);
    wait(*slot, ns);
    return Gpu::kWaiting;
  }
  if (pushed_out_.test(correlation)) return Gpu::kLate;
  if (given_up_.test(correlation)) {
    ++given_up_records_;
    return Gpu::kWaiting;
  }
  auto [it, added] = waiting_.try_emplace(correlation);
  it->second.gpu_ns += ns;
  ++it->second.records;
  if (added) {
    waiting_order_.push_back(correlation);
    // The oldest waiting id whose call never came is given up.
    while (waiting_.size() > waiting_limit_ && !waiting_order_.empty()) {
      const uint64_t oldest = waiting_order_.front();
      waiting_order_.pop_front();
      auto old = waiting_.find(oldest);
      if (old == waiting_.end()) continue;  // its call came
      given_up_records_ += old->second.records;
      given_up_.set(oldest);
      waiting_.erase(old);
    }
    if (waiting_order_.size() > 4 * waiting_limit_ + 1024) {
      std::deque<uint64_t> kept;  // drop the ids whose call came
      for (uint64_t id : waiting_order_)
        if (waiting_.contains(id)) kept.push_back(id);
      waiting_order_.swap(kept);
    }
  }
  return Gpu::kWaiting;
}

bool CallSlots::rename(uint64_t from, uint64_t to, Gpu& outcome, uint64_t& records, uint64_t& ns,
                       uint32_t& context, uint32_t& tag) {
  records = ns = 0;
  tag = 0;
  outcome = Gpu::kWaiting;
  auto it = waiting_.find(from);
  if (it == waiting_.end()) return !given_up_.test(from);
  records = it->second.records;
  ns = it->second.gpu_ns;
  tag = it->second.tag;
  waiting_.erase(it);  // its place in waiting_order_ is skipped later
  if (Slot* slot = find(to)) {
    slot->received = true;
    if (slot->opened) {  // walked: its tag is the owner's to check
      outcome = opened_gpu(*slot, ns, context);
    } else {
      wait(*slot, ns);
      if (tag != 0 && this->tag(to) == 0) set_tag(to, tag);
    }
    return true;
  }
  if (pushed_out_.test(to)) {
    outcome = Gpu::kLate;
    return true;
  }
  if (given_up_.test(to)) {
    given_up_records_ += records;
    return true;
  }
  auto [moved, added] = waiting_.try_emplace(to);
  moved->second.gpu_ns += ns;
  moved->second.records += records;
  if (moved->second.tag == 0) moved->second.tag = tag;
  if (added) waiting_order_.push_back(to);
  return true;
}

void CallSlots::mark_contexts(WalkContexts& contexts) const {
  for (const Slot& slot : slots_)
    if (slot.correlation != 0 && slot.opened && !retirable(slot)) contexts.mark(slot.context);
}

void CallSlots::rename_contexts(const std::vector<uint32_t>& renamed) {
  for (Slot& slot : slots_) {
    if (slot.correlation == 0 || !slot.opened) continue;
    if (retirable(slot)) {
      slot.work |= kRetired;
      slot.context = WalkContexts::kNone;
    } else {
      slot.context = renamed[slot.context];
    }
  }
}

uint64_t CallSlots::unpaired() const {
  uint64_t waiting = 0;
  for (const auto& [id, w] : waiting_) waiting += w.records;
  return waiting + given_up_records_ + zero_id_records_;
}

}  // namespace gprof::analysis
