// An external sort of key-averages rows, for tables with more rows than
// memory should hold (a row per op, --group-by seq: 13.7M rows from 100M
// records, 150 bytes each in memory). Rows are kept up to a budget of
// bytes, then sorted and written as a run to a temporary file
// (temp_file.h); sorted() merges the runs (a heap over their heads). Rows
// carry their names, so they are not fixed-size records as SpillSorter's.
//
// A row travels with its place: where it stands in the order the table
// created its rows (key_averages.h), which the table's stable sort keeps
// among equal rows.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/row.h"
#include "tools/analysis/read/temp_file.h"

namespace gprof::analysis {

// Where a row stands in the order its table created its rows: by file,
// then by what the file's reader says: the order it created them in, or
// for the rows of the stream (ops_stream.h) a section (CPU rows, GPU
// rows, ...) and in it a rank or a CPU row's first event.
struct RowPlace {
  uint64_t file = 0;  // file << 40 | section << 32 | thread
  uint64_t a = 0;
  uint64_t b = 0;
  uint64_t c = 0;
  auto operator<=>(const RowPlace&) const = default;
  static RowPlace ranked(uint32_t file, uint8_t section, uint64_t rank) {
    return RowPlace{uint64_t{file} << 40 | uint64_t{section} << 32, rank, 0, 0};
  }
};

struct PlacedRow {
  Row row;
  RowPlace place;
};

namespace row_runs {

// A run: rows encoded one after another (encode()) at [offset, offset +
// bytes) of a file that other runs may share.
struct Run {
  std::shared_ptr<TempFile> file;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

// Appends `row` to `out` as bytes.
void encode(const PlacedRow& row, std::vector<char>& out);

// A run's rows in order, read through a buffer of about `buffer` bytes.
class RunReader {
 public:
  RunReader(Run run, size_t buffer);
  // The next row into `out`; false at the run's end.
  bool next(PlacedRow& out);

 private:
  // At least `bytes` unread bytes in buffer_ (fewer only at the run's end).
  void need(size_t bytes);
  Run run_;
  uint64_t read_ = 0;  // bytes of the run taken into buffer_
  std::vector<char> buffer_;
  size_t begin_ = 0;
  size_t end_ = 0;
};

// The approximate memory a row holds.
size_t row_bytes(const PlacedRow& row);

}  // namespace row_runs

template <typename Less>
class RowRuns {
 public:
  static constexpr size_t kReadBudget = size_t{4} << 20;  // every run's read buffer together

  explicit RowRuns(size_t budget_bytes = size_t{32} << 20, Less less = Less())
      : budget_(budget_bytes), less_(less) {}

  void add(PlacedRow row) {
    held_ += row_runs::row_bytes(row);
    rows_.push_back(std::move(row));
    if (held_ >= budget_) spill();
  }
  // Takes `other`'s rows and runs (same order); `other` is empty afterwards.
  void absorb(RowRuns&& other) {
    for (row_runs::Run& run : other.runs_) runs_.push_back(std::move(run));
    other.runs_.clear();
    for (PlacedRow& row : other.rows_) add(std::move(row));
    other.rows_.clear();
    other.held_ = 0;
  }
  bool empty() const { return rows_.empty() && runs_.empty(); }
  size_t runs() const { return runs_.size(); }

  // Every row added, in `Less` order (equal rows in no fixed order); the
  // runs are read as the cursor goes and given up with it.
  class Cursor {
   public:
    bool next(PlacedRow& out) {
      if (heap_.empty()) return false;
      std::pop_heap(heap_.begin(), heap_.end(), after());
      const size_t source = heap_.back();
      heap_.pop_back();
      out = std::move(heads_[source]);
      refill(source);
      return true;
    }

   private:
    friend class RowRuns;
    // A max-heap by "comes after": the least row on top.
    auto after() const {
      return [this](size_t a, size_t b) { return less_(heads_[b], heads_[a]); };
    }
    void refill(size_t source) {
      bool more;
      if (source < readers_.size()) {
        more = readers_[source].next(heads_[source]);
      } else {
        more = next_held_ < held_.size();
        if (more) heads_[source] = std::move(held_[next_held_++]);
      }
      if (!more) return;
      heap_.push_back(source);
      std::push_heap(heap_.begin(), heap_.end(), after());
    }
    Less less_;
    std::vector<row_runs::RunReader> readers_;
    std::vector<PlacedRow> held_;  // the rows never spilled, sorted
    size_t next_held_ = 0;
    std::vector<PlacedRow> heads_;  // by source: each run, then held_
    std::vector<size_t> heap_;      // sources with a head
  };

  // The cursor over everything; this is empty afterwards.
  Cursor sorted() {
    Cursor c;
    c.less_ = less_;
    c.held_.reserve(rows_.size());
    for (const uint32_t i : held_order()) c.held_.push_back(std::move(rows_[i]));
    rows_.clear();
    held_ = 0;
    const size_t buffer = std::max<size_t>(kReadBudget / std::max<size_t>(runs_.size(), 1), 4096);
    for (row_runs::Run& run : runs_) c.readers_.emplace_back(std::move(run), buffer);
    runs_.clear();
    c.heads_.resize(c.readers_.size() + 1);
    for (size_t source = 0; source <= c.readers_.size(); ++source) c.refill(source);
    return c;
  }

 private:
  // The held rows' indices in order: a row (two strings, a dozen numbers)
  // is moved once, or not at all, rather than through every step of a sort.
  std::vector<uint32_t> held_order() const {
    std::vector<uint32_t> order(rows_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [this](uint32_t a, uint32_t b) { return less_(rows_[a], rows_[b]); });
    return order;
  }
  void spill() {
    if (!file_) file_ = std::make_shared<TempFile>("the rows of a large table");
    std::vector<char> bytes;
    row_runs::Run run{file_, file_->size(), 0};
    for (const uint32_t i : held_order()) {
      row_runs::encode(rows_[i], bytes);
      if (bytes.size() >= kWriteChunk) flush(bytes, run);
    }
    flush(bytes, run);
    runs_.push_back(std::move(run));
    rows_.clear();
    held_ = 0;
  }
  void flush(std::vector<char>& bytes, row_runs::Run& run) {
    if (bytes.empty()) return;
    file_->append(bytes.data(), bytes.size());
    run.bytes += bytes.size();
    bytes.clear();
  }
  static constexpr size_t kWriteChunk = size_t{1} << 20;

  size_t budget_;
  Less less_;
  std::vector<PlacedRow> rows_;
  size_t held_ = 0;
  std::shared_ptr<TempFile> file_;
  std::vector<row_runs::Run> runs_;
};

}  // namespace gprof::analysis
