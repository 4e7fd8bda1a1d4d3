#include "tools/analysis/aggregate/key_averages.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace gprof::analysis {

namespace {

size_t hash_of(RowKind kind, std::string_view name, std::string_view group) {
  const size_t h = std::hash<std::string_view>{}(name)*0x9E3779B97F4A7C15ull;
  return (h ^ std::hash<std::string_view>{}(group)) * 31 + static_cast<size_t>(kind);
}

}  // namespace

// The slot of (`kind`, `name`, `group`): its key's, or the empty one where
// it would go.
size_t KeyAverages::slot_of(RowKind kind, std::string_view name, std::string_view group) const {
  const size_t mask = index_.size() - 1;
  for (size_t i = hash_of(kind, name, group) & mask;; i = (i + 1) & mask) {
    const uint32_t entry = index_[i];
    if (entry == 0) return i;
    const Row& row = rows_[entry - 1];
    if (row.kind == kind && row.name == name && row.group == group) return i;
  }
}

void KeyAverages::rebuild_index(size_t rows) {
  size_t size = 16;
  while (size < 2 * std::max(rows, rows_.size()) + 2) size *= 2;
  index_.assign(size, 0);
  for (size_t key = 0; key < rows_.size(); ++key) {
    const Row& row = rows_[key];
    index_[slot_of(row.kind, row.name, row.group)] = static_cast<uint32_t>(key + 1);
  }
}

KeyAverages::Key KeyAverages::key(std::string_view name, RowKind kind, std::string_view group) {
  if (2 * (rows_.size() + 1) > index_.size()) rebuild_index(2 * (rows_.size() + 1));
  const size_t slot = slot_of(kind, name, group);
  if (index_[slot] != 0) return index_[slot] - 1;
  const Key key = static_cast<Key>(rows_.size());
  Row row;
  row.name = std::string(name);
  row.kind = kind;
  row.group = std::string(group);
  rows_.push_back(std::move(row));
  index_[slot] = key + 1;
  return key;
}

void KeyAverages::add_gpu_activity(Key key, uint64_t duration_ns, uint64_t count) {
  Row& row = rows_[key];
  row.count += count;
  row.self_device_ns += duration_ns;
  row.device_total_ns += duration_ns;
}

void KeyAverages::merge(KeyAverages&& other) {
  // Into an empty aggregator the rows are the other's, in their order: taken
  // whole rather than rebuilt, so that a file's rows are not held twice (a
  // row per op call with --group-by seq).
  if (rows_.empty()) {
    rows_ = std::exchange(other.rows_, {});
    index_ = std::exchange(other.index_, {});
    return;
  }
  for (Row& from : other.rows_) {
    Row& to = rows_[key(from.name, from.kind, from.group)];
    // Row labels set a GPU row's kind each time they ask for its key: the
    // last file's word stands.
    if (from.kind == RowKind::kGpu) to.gpu_kind = from.gpu_kind;
    add_row_values(to, from);
  }
  other.rows_.clear();
  other.index_.clear();
}

std::vector<Row> KeyAverages::finish() {
  // A key whose events were all outside the report's scope has no calls.
  // Filtered in place: the rows are not held twice.
  std::vector<Row> out = std::exchange(rows_, {});
  out.erase(std::remove_if(out.begin(), out.end(), [](const Row& row) { return row.count == 0; }),
            out.end());
  index_.clear();
  return out;
}

}  // namespace gprof::analysis
