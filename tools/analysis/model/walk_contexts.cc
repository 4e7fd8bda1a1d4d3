#include "tools/analysis/model/walk_contexts.h"

namespace gprof::analysis {

WalkContexts::WalkContexts() {
  clear();
}

void WalkContexts::clear() {
  index_.clear();
  recent_.assign(kRecent, Recent{});
  nodes_.assign(1, Node{});
}

WalkContexts::Key WalkContexts::key_of(const Node& n) {
  return Key{n.parent, code(n.targets[0]), n.count > 1 ? code(n.targets[1]) : 0};
}

uint32_t WalkContexts::extend_slow(const Key& key, uint32_t parent, const WalkTarget* targets,
                                   uint32_t count) {
  const uint8_t kept = static_cast<uint8_t>(count > 2 ? 2 : count);
  auto it = index_.find(key);
  uint32_t id = 0;
  if (it != index_.end()) {
    id = it->second;
  } else {
    Node n;
    n.parent = parent;
    n.count = kept;
    for (uint8_t i = 0; i < kept; ++i) n.targets[i] = targets[i];
    id = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(n);
    index_.emplace(key, id);
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
  index_.clear();
  recent_.assign(kRecent, Recent{});
  for (uint32_t id = 1; id < nodes_.size(); ++id) index_.emplace(key_of(nodes_[id]), id);
  return renamed;
}

}  // namespace gprof::analysis
