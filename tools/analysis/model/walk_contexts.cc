#include "tools/analysis/model/walk_contexts.h"

namespace gprof::analysis {

WalkContexts::WalkContexts() {
  clear();
}

void WalkContexts::clear() {
  index_reset(0);
  recent_.assign(kRecent, Recent{});
  nodes_.assign(1, Node{});
  ++generation_;
}

WalkContexts::Key WalkContexts::key_of(const Node& n) {
  return Key{n.parent, code(n.targets[0]), n.count > 1 ? code(n.targets[1]) : 0};
}

uint32_t WalkContexts::extend_slow(const Key& key, uint32_t parent, const WalkTarget* targets,
                                   uint32_t count) {
  const uint8_t kept = static_cast<uint8_t>(count > 2 ? 2 : count);
  uint32_t id = index_place(key, index_hash(key)).id;
  if (id == kNone) {
    Node n;
    n.parent = parent;
    n.count = kept;
    for (uint8_t i = 0; i < kept; ++i) n.targets[i] = targets[i];
    id = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(n);
    index_add(key, id);
  }
  recent_[Hash{}(key) % kRecent] = Recent{key, id};
  return id;
}

void WalkContexts::mark(uint32_t context) {
  for (uint32_t c = context; c != kNone && !nodes_[c].marked; c = nodes_[c].parent)
    nodes_[c].marked = true;
}

std::vector<uint32_t> WalkContexts::sweep() {
  std::vector<uint32_t> renamed(nodes_.size(), kNone);
  std::vector<Node> kept(1);
  // A parent comes before its children (it was made first), so it is
  // renamed before they are.
  for (uint32_t id = 1; id < nodes_.size(); ++id) {
    Node n = nodes_[id];
    if (!n.marked) continue;
    n.marked = false;
    n.parent = renamed[n.parent];
    renamed[id] = static_cast<uint32_t>(kept.size());
    kept.push_back(n);
  }
  nodes_.swap(kept);
  ++generation_;
  index_reset(nodes_.size());
  recent_.assign(kRecent, Recent{});
  for (uint32_t id = 1; id < nodes_.size(); ++id) index_add(key_of(nodes_[id]), id);
  return renamed;
}

WalkContexts::IndexSlot& WalkContexts::index_place(const Key& key, uint64_t hash) {
  const size_t mask = index_.size() - 1;
  const auto check = static_cast<uint32_t>(hash);
  // The product's high bits place it: its low ones follow the ids'.
  for (size_t i = static_cast<size_t>(hash >> 32) & mask;; i = (i + 1) & mask) {
    IndexSlot& slot = index_[i];
    if (slot.id == kNone || (slot.check == check && key_of(nodes_[slot.id]) == key)) return slot;
  }
}

void WalkContexts::index_add(const Key& key, uint32_t id) {
  if (2 * (index_count_ + 1) > index_.size()) {
    std::vector<IndexSlot> old;
    old.swap(index_);
    index_reset(2 * index_count_ + 2);
    for (const IndexSlot& slot : old)
      if (slot.id != kNone) index_add(key_of(nodes_[slot.id]), slot.id);
  }
  const uint64_t hash = index_hash(key);
  index_place(key, hash) = IndexSlot{id, static_cast<uint32_t>(hash)};
  ++index_count_;
}

void WalkContexts::index_reset(size_t count) {
  size_t size = 1024;
  while (size < 2 * count + 2) size *= 2;
  index_.assign(size, IndexSlot{});
  index_count_ = 0;
}

}  // namespace gprof::analysis
