// What row an event belongs to before it is known whether it counts: its
// kind, name and --group-by value, as interned ids (a "label"). A file's
// events are labelled as they are read; a label becomes a row key in
// KeyAverages only when an event of it is counted, so that rows appear in
// the order the report meets them and keys outside the scope never exist.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/group_by.h"
#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/model/id_index.h"
#include "tools/analysis/read/interner.h"

namespace gprof::analysis {

// A --group-by value that is a number (torch's sequence number: nearly
// one per op, so not interned as text): kNumberGroup | value, for values
// below kNumberGroup; larger ones are interned.
constexpr uint32_t kNumberGroup = uint32_t{1} << 31;
uint32_t number_group(uint64_t value, Interner& strings);

// The group of a range's row: `other` (the file's, --group-by process|rank,
// or none), or by its op's numbers with --group-by input-shape|seq
// (`seq`, `op_id`: as recorded, 0 for none; `input_shapes`: torch's sizes).
uint32_t range_group(GroupBy group_by, uint32_t other, uint64_t seq, uint64_t op_id,
                     std::string_view input_shapes, Interner& strings);

// The text of a row group: a number's digits, or the interned text.
std::string row_group_text(uint32_t group, const Interner& strings);

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

  // The row of `label`, created in `rows` on first use (again after `rows`
  // spilled), at `place` when given (KeyAverages::key_at).
  KeyAverages::Key key(uint32_t label, KeyAverages& rows,
                       const std::optional<RowPlace>& place = std::nullopt);

  void clear();

 private:
  // Where a label's slot search starts: the hash's high bits (the low ones
  // follow the ids').
  static size_t place(const RowLabel& l) {
    return (((static_cast<size_t>(l.name) * 0x9E3779B97F4A7C15ull) ^
             (static_cast<size_t>(l.group) * 0xC2B2AE3D27D4EB4Full) ^
             (static_cast<size_t>(l.kind) << 8) ^ static_cast<size_t>(l.gpu_kind)) *
            0x9E3779B97F4A7C15ull) >>
           32;
  }
  static constexpr KeyAverages::Key kNoKey = UINT32_MAX;

  const Interner& strings_;
  std::vector<RowLabel> labels_;
  std::vector<KeyAverages::Key> keys_;  // by label; kNoKey until used
  // When rows spill: the labels with a key, of the rows' generation_.
  std::vector<uint32_t> keyed_;
  uint32_t generation_ = 0;
  IdIndex index_;  // the labels by value
};

}  // namespace gprof::analysis
