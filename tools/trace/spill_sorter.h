// An external sort for fixed-size records, so that the trace's memory does
// not grow with the file: records are kept up to a budget, then each full
// buffer is sorted and written as a run to an anonymous temporary file
// (temp_file.h);
// sorted() merges the runs (a heap; the runs' read buffers share 4 MiB).
// When everything fits in one buffer no file is written. Equal records come out in the order
// they were added (each run is sorted stably; the merge breaks ties by run).
// A Less with a `prefix(record)` (a pair of integers that orders records as
// Less does, or ties) has its runs sorted as small keys that point at the
// records, which are then copied once: records of the trace are ~170 bytes,
// and moving them through a merge sort cost more than comparing them.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "tools/analysis/read/temp_file.h"

namespace gprof::trace {

template <typename Less, typename T>
concept HasPrefix = requires(const T& record) {
  { Less::prefix(record) } -> std::same_as<std::pair<uint64_t, uint64_t>>;
};

template <typename T, typename Less>
class SpillSorter {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  explicit SpillSorter(size_t budget_records = (size_t{8} << 20) / sizeof(T), Less less = Less())
      : budget_(std::max<size_t>(budget_records, 1)), less_(less) {}

  // The budget in records for `bytes` of records.
  static size_t records_in(size_t bytes) { return std::max<size_t>(bytes / sizeof(T), 1); }

  void add(const T& record) {
    if (sealed_) throw std::logic_error("SpillSorter: add after sorted()");
    if (buffer_.size() >= budget_) spill();
    // Room for the whole budget at once: growing a vector by doubling
    // copies it repeatedly. Pages never written cost no memory.
    if (buffer_.capacity() == 0) buffer_.reserve(std::min<size_t>(budget_, kReserveMax));
    buffer_.push_back(record);
  }

  size_t size() const { return total_ + buffer_.size(); }
  size_t runs() const { return runs_.size(); }

  // Pulls the records in order; any number of cursors may be opened, each
  // reads everything once.
  class Cursor {
   public:
    bool next(T& out) {
      if (heap_.empty()) return false;
      const size_t run = heap_.front().second;
      Source& s = sources_[run];
      out = *s.at++;
      if (refill(s)) {
        heap_.front().first = s.at;
      } else {
        heap_.front() = heap_.back();
        heap_.pop_back();
      }
      if (heap_.size() > 1) sift_down();
      return true;
    }

   private:
    friend class SpillSorter;
    struct Source {
      const T* memory = nullptr;  // the in-memory run, read in place
      size_t offset = 0;          // next record of the run in the file
      size_t left = 0;            // records of the run not yet read
      std::vector<T> buffer;      // a block of a run in the file
      const T* at = nullptr;      // the current record, in memory or buffer
      const T* end = nullptr;
    };
    using Head = std::pair<const T*, size_t>;  // current record, run
    struct After {
      const Less* less;
      bool operator()(const Head& a, const Head& b) const {
        if ((*less)(*b.first, *a.first)) return true;
        if ((*less)(*a.first, *b.first)) return false;
        return a.second > b.second;
      }
    };

    Cursor(const SpillSorter& sorter) : sorter_(sorter), after_{&sorter.less_} {
      sources_.resize(sorter.runs_.size() + 1);
      // The read buffers share a fixed budget, so that memory does not grow
      // with the number of runs (smaller reads when there are many).
      block_ = std::clamp<size_t>(kReadBudget / sources_.size() / sizeof(T), 1, kBlock);
      for (size_t i = 0; i < sorter.runs_.size(); ++i) {
        sources_[i].offset = sorter.runs_[i].first;
        sources_[i].left = sorter.runs_[i].second;
      }
      Source& memory = sources_.back();
      memory.memory = sorter.buffer_.data();
      memory.left = sorter.buffer_.size();
      for (size_t i = 0; i < sources_.size(); ++i)
        if (refill(sources_[i])) heap_.push_back({sources_[i].at, i});
      std::make_heap(heap_.begin(), heap_.end(), after_);
    }

    // The top changed (or went): back into place, one comparison per level
    // and child, instead of a pop and a push.
    void sift_down() {
      const size_t n = heap_.size();
      size_t at = 0;
      while (true) {
        const size_t left = 2 * at + 1;
        if (left >= n) break;
        size_t child = left;
        if (left + 1 < n && after_(heap_[left], heap_[left + 1])) child = left + 1;
        if (!after_(heap_[at], heap_[child])) break;
        std::swap(heap_[at], heap_[child]);
        at = child;
      }
    }

    // Whether the source has a current record, reading its next block when
    // the buffer is used up.
    bool refill(Source& s) {
      if (s.at != s.end) return true;
      if (s.left == 0) return false;
      if (s.memory != nullptr) {  // all of it at once: no copy
        s.at = s.memory;
        s.end = s.memory + s.left;
        s.left = 0;
        return true;
      }
      const size_t n = std::min(s.left, block_);
      s.buffer.resize(n);
      sorter_.file_->read(s.offset * sizeof(T), s.buffer.data(), n * sizeof(T));
      s.offset += n;
      s.left -= n;
      s.at = s.buffer.data();
      s.end = s.at + n;
      return true;
    }

    static constexpr size_t kBlock = std::max<size_t>(1, (size_t{64} << 10) / sizeof(T));
    static constexpr size_t kReadBudget = size_t{4} << 20;  // bytes, all runs together
    size_t block_ = kBlock;
    const SpillSorter& sorter_;
    std::vector<Source> sources_;
    After after_;
    std::vector<Head> heap_;  // a max-heap by After: the next record on top
  };

  // Sorts what is left in memory; no add() afterwards.
  Cursor sorted() {
    if (!sealed_) {
      sort_buffer();
      sealed_ = true;
    }
    return Cursor(*this);
  }

 private:
  // Stably, as std::stable_sort would.
  void sort_buffer() {
    if constexpr (HasPrefix<Less, T>) {
      struct Key {
        std::pair<uint64_t, uint64_t> prefix;
        uint32_t index;
      };
      std::vector<Key> keys(buffer_.size());
      for (size_t i = 0; i < buffer_.size(); ++i)
        keys[i] = Key{Less::prefix(buffer_[i]), static_cast<uint32_t>(i)};
      std::sort(keys.begin(), keys.end(), [this](const Key& a, const Key& b) {
        if (a.prefix != b.prefix) return a.prefix < b.prefix;
        const T& x = buffer_[a.index];
        const T& y = buffer_[b.index];
        if (less_(x, y)) return true;
        if (less_(y, x)) return false;
        return a.index < b.index;
      });
      // The permutation applied in place, cycle by cycle (each record moves
      // once), so that sorting needs no second buffer of records.
      constexpr uint32_t kDone = UINT32_MAX;
      for (size_t start = 0; start < keys.size(); ++start) {
        if (keys[start].index == kDone || keys[start].index == start) continue;
        T held = buffer_[start];
        size_t at = start;
        while (true) {
          const uint32_t from = keys[at].index;
          keys[at].index = kDone;
          if (from == start) {
            buffer_[at] = held;
            break;
          }
          buffer_[at] = buffer_[from];
          at = from;
        }
      }
    } else {
      std::stable_sort(buffer_.begin(), buffer_.end(), less_);
    }
  }

  void spill() {
    sort_buffer();
    if (!file_) file_ = std::make_unique<analysis::TempFile>("sorting");
    file_->append(buffer_.data(), buffer_.size() * sizeof(T));
    runs_.emplace_back(total_, buffer_.size());
    total_ += buffer_.size();
    buffer_.clear();
  }

  static constexpr size_t kReserveMax = (size_t{256} << 20) / sizeof(T);
  size_t budget_;
  Less less_;
  std::vector<T> buffer_;
  std::vector<std::pair<size_t, size_t>> runs_;  // (first record, count) in file_
  size_t total_ = 0;                             // records in file_
  std::unique_ptr<analysis::TempFile> file_;
  bool sealed_ = false;
};

}  // namespace gprof::trace
