// The labels of rows grouped by a number (--group-by seq: nearly one row
// per op, 13.7M of them from 100M records) in bounded memory: a window
// over the most recent ones. Past `window` labels the older half leaves:
// what each has summed goes out as a row with its place (row_runs.h), its
// label to a file. A label asked for again later gets a new id, and its
// rows meet the old ones when the table merges rows by key.
//
// What reaches a label after it left (GPU time of a call walked long
// before its work came, a range walked after its label left, memory
// resolved when the file ends) is kept aside by id, on disk past a
// budget, and joined with the label when the file ends (finish()).
//
// Ids carry kBit, so that the stream's other labels (ids from 0, vectors
// by id) and these never meet.
//
// A label still open when it leaves (a range pushed and not yet popped,
// OpenLabels says which) is kept by value: the same op nested in it gets
// its id again, so that the walk counts its totals once (nesting_walk.h),
// as a table in memory does.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/first_event.h"
#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/row_runs.h"
#include "tools/analysis/model/id_index.h"
#include "tools/analysis/model/row_labels.h"
#include "tools/analysis/read/interner.h"
#include "tools/analysis/read/spill_sorter.h"
#include "tools/analysis/read/temp_file.h"

namespace gprof::analysis {

class NumberRows {
 public:
  static constexpr uint32_t kBit = uint32_t{1} << 31;
  static bool holds(uint32_t label) { return (label & kBit) != 0; }

  // The ids of the labels in use (on a range stack), in any order.
  using OpenLabels = std::function<void(std::vector<uint32_t>& ids)>;

  // `strings`: what the labels' names and groups are ids in; `file`: the
  // rows' places.
  NumberRows(const Interner& strings, uint32_t file, size_t window, OpenLabels open);

  // The label of `l` (a range's, with a number group), made when new.
  uint32_t label(const RowLabel& l);
  // What `label`'s row adds up (for one that left: a scratch kept aside
  // when another is asked for, or by flush()).
  RowValues& values(uint32_t label) {
    const uint32_t n = label & ~kBit;
    if (n >= base_) [[likely]]
      return entries_[n - base_].values;
    return late(n).values;
  }
  // A kept event of `label` was walked (WalkRows::key_of).
  void walked(uint32_t label, const CpuNode& node) {
    const uint32_t n = label & ~kBit;
    if (n >= base_) [[likely]]
      entries_[n - base_].first.walked(node);
    else
      late(n).first.walked(node);
  }
  // The first event of a label in memory (finish()'s order).
  const FirstEvent& first(uint32_t label) const { return entries_[(label & ~kBit) - base_].first; }
  const RowLabel& get(uint32_t label) const { return entries_[(label & ~kBit) - base_].label; }

  // The labels in memory that were walked.
  std::vector<uint32_t> walked_labels() const;
  // Whether any label left memory: finish() then has rows.
  bool evicted() const { return base_ != 0; }

  // After the file: the rows of the labels that left and what reached them
  // later, for KeyAverages::add_spilled().
  RowRuns<ByKey> finish();

 private:
  struct Entry {
    RowLabel label;
    RowValues values;
    FirstEvent first;
  };
  // What reached label `n` after it left.
  struct Late {
    uint32_t n = 0;
    RowValues values;
    FirstEvent first;
  };
  struct ByN {
    bool operator()(const Late& a, const Late& b) const { return a.n < b.n; }
  };
  static size_t place(const RowLabel& l) {
    return static_cast<size_t>(
        ((uint64_t{l.name} * 0x9E3779B97F4A7C15ull) ^ (uint64_t{l.group} * 0xC2B2AE3D27D4EB4Full)) *
            0x9E3779B97F4A7C15ull >>
        32);
  }
  Late& late(uint32_t n) {
    if (!pending_ || pending_->n != n) {
      flush();
      pending_ = Late{};
      pending_->n = n;
    }
    return *pending_;
  }
  void flush() {
    if (pending_) late_.add(*pending_);
    pending_.reset();
  }
  void evict();
  PlacedRow row_of(const RowLabel& label, const RowValues& values, const FirstEvent& first) const;

  const Interner& strings_;
  const uint32_t file_;
  const size_t window_;
  const OpenLabels open_;
  // Labels that left open, by value: as many as ranges of them are nested,
  // which a file of nested ops with a row each can make 100,000.
  struct PlaceOf {
    size_t operator()(const RowLabel& l) const { return place(l); }
  };
  std::unordered_map<RowLabel, uint32_t, PlaceOf> open_left_;
  uint32_t base_ = 0;               // the first id in memory
  std::vector<Entry> entries_;      // ids base_, base_ + 1, ...
  IdIndex index_;                   // entries_ by label: ids from base_
  RowRuns<ByKey> rows_;             // of the labels that left
  std::unique_ptr<TempFile> left_;  // the labels that left, by id from 0
  std::optional<Late> pending_;
  SpillSorter<Late, ByN> late_{(size_t{4} << 20) / sizeof(Late)};
};

}  // namespace gprof::analysis
