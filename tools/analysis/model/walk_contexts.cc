#include "tools/analysis/model/walk_contexts.h"

namespace gprof::analysis {
namespace {

// 0 is "no target"; a target is its key and field, plus one.
uint64_t code(const WalkTarget& t) {
  return ((static_cast<uint64_t>(t.key) << 3) | static_cast<uint64_t>(t.field)) + 1;
}

}  // namespace

WalkContexts::WalkContexts() {
  clear();
}

void WalkContexts::clear() {
  index_.clear();
  flat_.assign(1, {});
}

uint32_t WalkContexts::extend(uint32_t parent, const WalkTarget* targets, uint32_t count) {
  if (count == 0) return parent;
  const Key key{parent, code(targets[0]), count > 1 ? code(targets[1]) : 0};
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  std::vector<WalkTarget> flat(targets, targets + count);
  const std::vector<WalkTarget>& above = flat_[parent];
  flat.insert(flat.end(), above.begin(), above.end());
  const auto id = static_cast<uint32_t>(flat_.size());
  flat_.push_back(std::move(flat));
  index_.emplace(key, id);
  return id;
}

}  // namespace gprof::analysis
