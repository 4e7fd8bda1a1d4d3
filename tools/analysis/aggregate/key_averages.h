// The rows of the key-averages tables (docs/architecture.md §7), keyed by what a row
// is (a range, an API call, a GPU activity, [memory]), its name and its
// --group-by value. Callers add to rows through row(); how events nest and
// what they add is cpu_tree.h's and ops_rows.h's business.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"
#include "tools/analysis/aggregate/row_runs.h"
#include "tools/analysis/model/id_index.h"

namespace gprof::analysis {

// Rows by (kind, name, group): the order of a spilled table's runs, which
// only brings equal keys together. Lengths first: most rows of a large
// table share a name and differ in a short group (a sequence number).
struct ByKey {
  bool operator()(const PlacedRow& a, const PlacedRow& b) const {
    if (a.row.kind != b.row.kind) return a.row.kind < b.row.kind;
    if (a.row.group.size() != b.row.group.size()) return a.row.group.size() < b.row.group.size();
    if (const int c = a.row.group.compare(b.row.group); c != 0) return c < 0;
    if (a.row.name.size() != b.row.name.size()) return a.row.name.size() < b.row.name.size();
    return a.row.name < b.row.name;
  }
};

class KeyAverages {
 public:
  using Key = uint32_t;

  // `file`: the rows' places (row_runs.h) are the file's and the order
  // they were created in, so that the rows of many files, merged, keep the
  // order of one table reading the files one by one.
  explicit KeyAverages(uint32_t file = 0) : file_(file) {}

  // Past `rows` rows in memory, they are written out sorted by key
  // (row_runs.h) before the next key is made: the keys given before are
  // then no more (generation() says so), and the table is read with
  // merged(). 0: never (the default).
  void spill_above(size_t rows) {
    spill_above_ = rows;
    // The runs hold as many before they write them, 8 MiB at most.
    runs_ = rows == 0 ? RowRuns<ByKey>()
                      : RowRuns<ByKey>(std::min(rows * sizeof(PlacedRow), kRunsHeld));
  }
  bool spills() const { return spill_above_ != 0; }
  bool spilled() const { return !runs_.empty(); }
  // Rows made elsewhere (row_runs.h), added as if by key_at(): a reader's
  // rows that left memory before the file ended.
  void add_spilled(RowRuns<ByKey>&& rows) { runs_.absorb(std::move(rows)); }
  // Changes when the keys given before are no more.
  uint32_t generation() const { return generation_; }

  // The row of (`kind`, `name`, `group`), created on first use.
  Key key(std::string_view name, RowKind kind, std::string_view group = {});
  // The same, created at `place` (or moved there when it is earlier): for a
  // reader that knows where its rows stand. In memory, rows are in the
  // order they were created: a reader gives its places in order.
  Key key_at(std::string_view name, RowKind kind, std::string_view group, const RowPlace& place);

  Row& row(Key key) { return rows_[key]; }

  // `count` executions of a GPU activity that took `duration_ns` together
  // (self = total). A file without GPU records adds one with duration 0 per
  // kernel launch, so that kernel rows count launches.
  void add_gpu_activity(Key key, uint64_t duration_ns, uint64_t count = 1);

  // The rows with at least one call, in the order their keys were created;
  // the aggregator is empty afterwards. All in memory, spilled or not.
  std::vector<Row> finish();

  // The rows with at least one call, each once with its place, in the
  // order of their keys (not their places): what a table too large for
  // memory is read by. The aggregator is empty afterwards.
  class Merged {
   public:
    bool next(PlacedRow& out);

   private:
    friend class KeyAverages;
    explicit Merged(RowRuns<ByKey>::Cursor cursor) : cursor_(std::move(cursor)) {
      more_ = cursor_.next(ahead_);
    }
    RowRuns<ByKey>::Cursor cursor_;
    PlacedRow ahead_;
    bool more_ = false;
  };
  Merged merged();

  size_t row_count() const { return rows_.size(); }
  // Room for `rows` rows in all: a row per op (--group-by seq) would
  // otherwise be copied as the table grows, and held twice meanwhile.
  void reserve(size_t rows) {
    if (spill_above_ != 0) rows = std::min(rows, spill_above_);
    rows_.reserve(rows);
    places_.reserve(rows);
    if (rows >= index_.slot_count() / 2) rebuild_index(rows);
  }

  // Adds `other`'s rows, in their order, as if their events had been added
  // here after this aggregator's (parallel_files.h: files read apart, merged
  // in file order). `other` is empty afterwards.
  void merge(KeyAverages&& other);

 private:
  // The keys by (kind, name, group) (id_index.h): a map by a composite
  // string took about 130 bytes a row.
  uint32_t& slot_of(RowKind kind, std::string_view name, std::string_view group);
  void rebuild_index(size_t rows);
  void spill();
  static constexpr size_t kRunsHeld = size_t{8} << 20;
  std::vector<Row> rows_;
  std::vector<RowPlace> places_;  // by key
  IdIndex index_;
  uint32_t file_;
  uint64_t next_rank_ = 0;
  size_t spill_above_ = 0;
  uint32_t generation_ = 0;
  RowRuns<ByKey> runs_;
};

}  // namespace gprof::analysis
