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

// What both kinds of table learn of their rows, one at a time, in the
// table's order.
class ViewTally {
 public:
  ViewTally(LargeTable& out, const TableOptions& options, const LargeTableOptions& large)
      : out_(out), options_(options), large_(large) {}
  // False: the row is not in the view.
  bool add(const Row& row) {
    totals_.add(row);
    out_.any_rows = true;
    if (!row_in_view(row, large_.view)) return false;
    out_.memory_row = out_.memory_row || row.name == "[memory]";
    out_.any_group = out_.any_group || !row.group.empty();
    out_.moved_memory = out_.moved_memory || has_memory(row);
    out_.summary.add(row, options_);
    return true;
  }
  void finish() { out_.summary.totals = totals_.totals(large_.top_level_only); }

 private:
  LargeTable& out_;
  const TableOptions& options_;
  const LargeTableOptions& large_;
  RowTotals totals_;
};

// A table held in memory: its rows in view, sorted as sort_rows() sorts.
LargeTable read_held_table(std::vector<Row> rows, const TableOptions& options,
                           const LargeTableOptions& large) {
  LargeTable out(options);
  ViewTally tally(out, options, large);
  std::vector<Row> shown;
  for (Row& row : rows)
    if (tally.add(row)) shown.push_back(std::move(row));
  tally.finish();
  if (large.then_by) sort_rows(shown, *large.then_by);
  out.rows = table_row_cursor(std::move(shown), options);
  return out;
}

// A table that spilled: the merge of its runs.
LargeTable read_spilled_table(KeyAverages& rows, const TableOptions& options,
                              const LargeTableOptions& large) {
  LargeTable out(options);
  const ByPrint order{options.sort, large.then_by};
  const size_t limit = options.row_limit;
  const bool top = limit != 0 && limit <= kTopInMemory;
  auto kept = std::make_shared<std::vector<PlacedRow>>();
  auto sorted = std::make_shared<RowRuns<ByPrint>>(size_t{16} << 20, order);

  ViewTally tally(out, options, large);
  KeyAverages::Merged merged = rows.merged();
  for (PlacedRow placed; merged.next(placed);) {
    if (!tally.add(placed.row)) continue;
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
  tally.finish();

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

}  // namespace

LargeTable read_table(KeyAverages& rows, const TableOptions& options,
                      const LargeTableOptions& large) {
  if (rows.spilled()) return read_spilled_table(rows, options, large);
  return read_held_table(rows.finish(), options, large);
}

}  // namespace gprof::analysis
