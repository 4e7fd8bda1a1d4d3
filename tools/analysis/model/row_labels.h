// What row an event belongs to before it is known whether it counts: its
// kind, name and --group-by value, as interned ids (a "label"). A file's
// events are labelled as they are read; a label becomes a row key in
// KeyAverages only when an event of it is counted, so that rows appear in
// the order the report meets them and keys outside the scope never exist.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/read/interner.h"

namespace gprof::analysis {

struct RowLabel {
  RowKind kind = RowKind::kApi;
  uint32_t name = Interner::kEmpty;
  uint32_t group = Interner::kEmpty;
  GpuKind gpu_kind{};
  bool operator==(const RowLabel&) const = default;
};

// One file's labels; clear() between files.
class RowLabels {
 public:
  explicit RowLabels(const Interner& strings) : strings_(strings) {}

  uint32_t label(const RowLabel& label);
  const RowLabel& get(uint32_t label) const { return labels_[label]; }
  // The same kind and name with another group.
  uint32_t regroup(uint32_t label, uint32_t group);

  // The row of `label`, created in `rows` on first use.
  KeyAverages::Key key(uint32_t label, KeyAverages& rows);

  void clear();

 private:
  struct Hash {
    size_t operator()(const RowLabel& l) const {
      return (static_cast<size_t>(l.name) * 0x9E3779B97F4A7C15ull) ^
             (static_cast<size_t>(l.group) << 8) ^ static_cast<size_t>(l.kind) ^
             (static_cast<size_t>(l.gpu_kind) << 4);
    }
  };
  static constexpr KeyAverages::Key kNoKey = UINT32_MAX;

  const Interner& strings_;
  std::vector<RowLabel> labels_;
  std::vector<KeyAverages::Key> keys_;  // by label; kNoKey until used
  std::unordered_map<RowLabel, uint32_t, Hash> index_;
};

}  // namespace gprof::analysis
