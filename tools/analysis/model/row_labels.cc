#include "tools/analysis/model/row_labels.h"

namespace gprof::analysis {

uint32_t number_group(uint64_t value, Interner& strings) {
  if (value < kNumberGroup) return kNumberGroup | static_cast<uint32_t>(value);
  return strings.id(std::to_string(value));
}

uint32_t range_group(GroupBy group_by, uint32_t other, uint64_t seq, uint64_t op_id,
                     std::string_view input_shapes, Interner& strings) {
  // torch keys an op by name and shapes; an op called without tensors has
  // "[]" there. Other ranges are no ops and have no shapes.
  const bool op = seq != 0 || op_id != 0 || !input_shapes.empty();
  if (group_by == GroupBy::kInputShape && op)
    return strings.id(input_shapes.empty() ? std::string_view("[]") : input_shapes);
  if (group_by == GroupBy::kSeq && seq != 0) return number_group(seq - 1, strings);
  return other;
}

uint32_t RowLabels::label(const RowLabel& label) {
  if (!index_.fits(labels_.size() + 1))
    index_.rebuild(2 * (labels_.size() + 1), labels_.size(),
                   [&](size_t id) { return place(labels_[id]); });
  uint32_t& slot = index_.slot(place(label), [&](uint32_t id) { return labels_[id] == label; });
  if (slot != 0) return slot - 1;
  const auto id = static_cast<uint32_t>(labels_.size());
  labels_.push_back(label);
  keys_.push_back(kNoKey);
  slot = id + 1;
  return id;
}

uint32_t RowLabels::regroup(uint32_t label, uint32_t group) {
  RowLabel other = labels_[label];
  other.group = group;
  return this->label(other);
}

std::string row_group_text(uint32_t group, const Interner& strings) {
  if (group & kNumberGroup) return std::to_string(group & ~kNumberGroup);
  return strings.text(group);
}

KeyAverages::Key RowLabels::key(uint32_t label, KeyAverages& rows,
                                const std::optional<RowPlace>& place) {
  if (rows.generation() != generation_) {
    for (const uint32_t l : keyed_) keys_[l] = kNoKey;
    keyed_.clear();
    generation_ = rows.generation();
  }
  KeyAverages::Key& key = keys_[label];
  if (key == kNoKey) {
    if (rows.spills()) keyed_.push_back(label);
    const RowLabel& l = labels_[label];
    const std::string& name = strings_.text(l.name);
    const std::string group = row_group_text(l.group, strings_);
    key = place ? rows.key_at(name, l.kind, group, *place) : rows.key(name, l.kind, group);
    if (l.kind == RowKind::kGpu) rows.row(key).gpu_kind = l.gpu_kind;
  }
  return key;
}

void RowLabels::clear() {
  labels_.clear();
  keys_.clear();
  keyed_.clear();
  index_.clear();
}

}  // namespace gprof::analysis
