// The rows of the key-averages tables (docs/architecture.md §7), keyed by what a row
// is (a range, an API call, a GPU activity, [memory]), its name and its
// --group-by value. Callers add to rows through row(); how events nest and
// what they add is cpu_tree.h's and ops_rows.h's business.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/row.h"
#include "tools/analysis/model/id_index.h"

namespace gprof::analysis {

class KeyAverages {
 public:
  using Key = uint32_t;

  // The row of (`kind`, `name`, `group`), created on first use.
  Key key(std::string_view name, RowKind kind, std::string_view group = {});

  Row& row(Key key) { return rows_[key]; }

  // `count` executions of a GPU activity that took `duration_ns` together
  // (self = total). A file without GPU records adds one with duration 0 per
  // kernel launch, so that kernel rows count launches.
  void add_gpu_activity(Key key, uint64_t duration_ns, uint64_t count = 1);

  // The rows with at least one call, in the order their keys were created;
  // the aggregator is empty afterwards.
  std::vector<Row> finish();

  size_t row_count() const { return rows_.size(); }
  // Room for `rows` rows in all: a row per op (--group-by seq) would
  // otherwise be copied as the table grows, and held twice meanwhile.
  void reserve(size_t rows) {
    rows_.reserve(rows);
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
  std::vector<Row> rows_;
  IdIndex index_;
};

}  // namespace gprof::analysis
