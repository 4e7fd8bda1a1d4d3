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
  const RowPlace place = RowPlace::ranked(file_, 0, next_rank_);
  const Key key = key_at(name, kind, group, place);
  if (places_[key] == place) ++next_rank_;  // made here: a key found has an earlier place
  return key;
}

KeyAverages::Key KeyAverages::key_at(std::string_view name, RowKind kind, std::string_view group,
                                     const RowPlace& place) {
  if (!index_.fits(rows_.size() + 1)) rebuild_index(2 * (rows_.size() + 1));
  uint32_t* slot = &slot_of(kind, name, group);
  if (*slot != 0) {
    RowPlace& held = places_[*slot - 1];
    held = std::min(held, place);
    return *slot - 1;
  }
  if (spill_above_ != 0 && rows_.size() >= spill_above_) {
    spill();
    rebuild_index(spill_above_);
    slot = &slot_of(kind, name, group);
  }
  const Key key = static_cast<Key>(rows_.size());
  Row row;
  row.name = std::string(name);
  row.kind = kind;
  row.group = std::string(group);
  rows_.push_back(std::move(row));
  places_.push_back(place);
  *slot = key + 1;
  return key;
}

void KeyAverages::spill() {
  for (size_t key = 0; key < rows_.size(); ++key)
    runs_.add(PlacedRow{std::move(rows_[key]), places_[key]});
  rows_.clear();
  places_.clear();
  index_.clear();
  ++generation_;
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
  if (rows_.empty() && !spilled()) {
    rows_ = std::exchange(other.rows_, {});
    places_ = std::exchange(other.places_, {});
    index_ = std::exchange(other.index_, {});
    runs_.absorb(std::move(other.runs_));
    if (spill_above_ != 0 && rows_.size() > spill_above_) {
      spill();
    }
    return;
  }
  runs_.absorb(std::move(other.runs_));
  for (size_t i = 0; i < other.rows_.size(); ++i) {
    Row& from = other.rows_[i];
    const Key key = key_at(from.name, from.kind, from.group, other.places_[i]);
    Row& to = rows_[key];
    // Row labels set a GPU row's kind each time they ask for its key: the
    // last file's word stands.
    if (from.kind == RowKind::kGpu) to.gpu_kind = from.gpu_kind;
    add_row_values(to, from);
  }
  other.rows_.clear();
  other.places_.clear();
  other.index_.clear();
}

std::vector<Row> KeyAverages::finish() {
  if (spilled()) {
    std::vector<PlacedRow> placed;
    Merged rows = merged();
    for (PlacedRow row; rows.next(row);) placed.push_back(std::move(row));
    std::sort(placed.begin(), placed.end(),
              [](const PlacedRow& a, const PlacedRow& b) { return a.place < b.place; });
    std::vector<Row> out;
    out.reserve(placed.size());
    for (PlacedRow& row : placed) out.push_back(std::move(row.row));
    return out;
  }
  // A key whose events were all outside the report's scope has no calls.
  // Filtered in place: the rows are not held twice.
  std::vector<Row> out = std::exchange(rows_, {});
  out.erase(std::remove_if(out.begin(), out.end(), [](const Row& row) { return row.count == 0; }),
            out.end());
  places_.clear();
  index_.clear();
  return out;
}

KeyAverages::Merged KeyAverages::merged() {
  spill();
  return Merged(runs_.sorted());
}

bool KeyAverages::Merged::next(PlacedRow& out) {
  while (more_) {
    out = std::move(ahead_);
    // The same key in other runs: one row, at the earliest place, of the
    // kind of GPU work the latest one named (merge()).
    RowPlace latest = out.place;
    while ((more_ = cursor_.next(ahead_)) && !ByKey{}(out, ahead_)) {
      if (ahead_.place > latest) {
        latest = ahead_.place;
        out.row.gpu_kind = ahead_.row.gpu_kind;
      }
      out.place = std::min(out.place, ahead_.place);
      add_row_values(out.row, ahead_.row);
    }
    if (out.row.count != 0) return true;
  }
  return false;
}

}  // namespace gprof::analysis
