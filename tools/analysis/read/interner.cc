#include "tools/analysis/read/interner.h"

namespace gprof::analysis {

Interner::Interner() {
  texts_.emplace_back();
  ids_.emplace(texts_.back(), kEmpty);
}

uint32_t Interner::id(std::string_view text) {
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(texts_.size());
  texts_.emplace_back(text);
  ids_.emplace(texts_.back(), id);
  return id;
}

}  // namespace gprof::analysis
