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

uint32_t& KeyAverages::slot_of(RowKind kind, std::string_view name, std::string_view group) {
  return index_.slot(hash_of(kind, name, group), [&](uint32_t key) {
    const Row& row = rows_[key];
    return row.kind == kind && row.name == name && row.group == group;
  });
}

void KeyAverages::rebuild_index(size_t rows) {
  index_.rebuild(std::max(rows, rows_.size()), rows_.size(), [&](size_t key) {
    const Row& row = rows_[key];
    return hash_of(row.kind, row.name, row.group);
  });
}

KeyAverages::Key KeyAverages::key(std::string_view name, RowKind kind, std::string_view group) {
  if (!index_.fits(rows_.size() + 1)) rebuild_index(2 * (rows_.size() + 1));
  uint32_t& slot = slot_of(kind, name, group);
  if (slot != 0) return slot - 1;
  const Key key = static_cast<Key>(rows_.size());
  Row row;
  row.name = std::string(name);
  row.kind = kind;
  row.group = std::string(group);
  rows_.push_back(std::move(row));
  slot = key + 1;
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
