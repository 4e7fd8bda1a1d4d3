#include "tools/analysis/model/row_labels.h"

namespace gprof::analysis {

uint32_t RowLabels::label(const RowLabel& label) {
  auto it = index_.find(label);
  if (it != index_.end()) return it->second;
  const auto id = static_cast<uint32_t>(labels_.size());
  labels_.push_back(label);
  keys_.push_back(kNoKey);
  index_.emplace(label, id);
  return id;
}

uint32_t RowLabels::regroup(uint32_t label, uint32_t group) {
  RowLabel other = labels_[label];
  other.group = group;
  return this->label(other);
}

KeyAverages::Key RowLabels::key(uint32_t label, KeyAverages& rows) {
  KeyAverages::Key& key = keys_[label];
  if (key == kNoKey) {
    const RowLabel& l = labels_[label];
    key = rows.key(strings_.text(l.name), l.kind, strings_.text(l.group));
    if (l.kind == RowKind::kGpu) rows.row(key).gpu_kind = l.gpu_kind;
  }
  return key;
}

void RowLabels::clear() {
  labels_.clear();
  keys_.clear();
  index_.clear();
}

}  // namespace gprof::analysis
