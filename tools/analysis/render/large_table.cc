#include "tools/analysis/render/large_table.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "tools/analysis/aggregate/row_runs.h"

namespace gprof::analysis {
namespace {

// The order sort_rows() gives, as a total order: equal rows by place, the
// order a stable sort keeps.
struct ByPrint {
  std::optional<SortKey> key;  // nullopt: as then_by and places have them
  std::optional<SortKey> then_by;
  bool operator()(const PlacedRow& a, const PlacedRow& b) const {
    if (key == SortKey::kName) {
      if (const int c = a.row.name.compare(b.row.name); c != 0) return c < 0;
    } else if (key) {
      const double va = sort_value(a.row, *key);
      const double vb = sort_value(b.row, *key);
      if (va != vb) return va > vb;
    }
    if (then_by) {
      const double va = sort_value(a.row, *then_by);
      const double vb = sort_value(b.row, *then_by);
      if (va != vb) return va > vb;
    }
    return a.place < b.place;
  }
};

// Up to this many rows printed are kept in memory; more go through an
// external sort.
constexpr size_t kTopInMemory = size_t{1} << 16;

}  // namespace

LargeTable read_large_table(KeyAverages& rows, const TableOptions& options,
                            const LargeTableOptions& large) {
  LargeTable out(options);
  const ByPrint order{options.sort, large.then_by};
  const size_t limit = options.row_limit;
  const bool top = limit != 0 && limit <= kTopInMemory;
  auto kept = std::make_shared<std::vector<PlacedRow>>();
  auto sorted = std::make_shared<RowRuns<ByPrint>>(size_t{16} << 20, order);

  RowTotals totals;
  KeyAverages::Merged merged = rows.merged();
  for (PlacedRow placed; merged.next(placed);) {
    const Row& row = placed.row;
    totals.add(row);
    out.any_rows = true;
    if (!row_in_view(row, large.view)) continue;
    out.memory_row = out.memory_row || row.name == "[memory]";
    out.any_group = out.any_group || !row.group.empty();
    out.moved_memory = out.moved_memory || has_memory(row);
    out.summary.add(row, options);
    if (!top) {
      sorted->add(std::move(placed));
      continue;
    }
    // The first `limit` in print order: a heap whose top is the last of them.
    if (kept->size() < limit) {
      kept->push_back(std::move(placed));
      std::push_heap(kept->begin(), kept->end(), order);
    } else if (order(placed, kept->front())) {
      std::pop_heap(kept->begin(), kept->end(), order);
      kept->back() = std::move(placed);
      std::push_heap(kept->begin(), kept->end(), order);
    }
  }
  out.summary.totals = totals.totals(large.top_level_only);

  if (top) {
    std::sort_heap(kept->begin(), kept->end(), order);
    out.rows = [kept, next = size_t{0}](Row& row) mutable {
      if (next == kept->size()) return false;
      row = std::move((*kept)[next++].row);
      return true;
    };
    return out;
  }
  auto cursor = std::make_shared<RowRuns<ByPrint>::Cursor>(sorted->sorted());
  out.rows = [cursor, sorted, limit, given = size_t{0}](Row& row) mutable {
    PlacedRow placed;
    if ((limit != 0 && given == limit) || !cursor->next(placed)) return false;
    ++given;
    row = std::move(placed.row);
    return true;
  };
  return out;
}

}  // namespace gprof::analysis
