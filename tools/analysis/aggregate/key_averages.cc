#include "tools/analysis/aggregate/key_averages.h"

#include <algorithm>
#include <utility>

namespace gprof::analysis {

KeyAverages::Key KeyAverages::key(std::string_view name, RowKind kind, std::string_view group) {
  // Kind first, then the name and group separated by a byte no name holds.
  std::string composite;
  composite.reserve(name.size() + group.size() + 2);
  composite += static_cast<char>(kind);
  composite += name;
  composite += '\0';
  composite += group;
  auto it = keys_.find(composite);
  if (it != keys_.end()) return it->second;
  const Key key = static_cast<Key>(rows_.size());
  Row row;
  row.name = std::string(name);
  row.kind = kind;
  row.group = std::string(group);
  rows_.push_back(std::move(row));
  keys_.emplace(std::move(composite), key);
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
    keys_ = std::exchange(other.keys_, {});
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
  other.keys_.clear();
}

std::vector<Row> KeyAverages::finish() {
  // A key whose events were all outside the report's scope has no calls.
  // Filtered in place: the rows are not held twice.
  std::vector<Row> out = std::exchange(rows_, {});
  out.erase(std::remove_if(out.begin(), out.end(), [](const Row& row) { return row.count == 0; }),
            out.end());
  keys_.clear();
  return out;
}

}  // namespace gprof::analysis
