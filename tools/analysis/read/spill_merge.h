// A sealed SpillSorter's records in order, as its sorted() cursor gives
// them, with the merge of its runs done on helper threads: the runs are cut
// into `lanes` groups of consecutive runs (the records kept in memory go
// with the last), each group is merged on a thread of its own into batches
// of decoded records, and the caller's thread only picks, record by record,
// the least of the lanes' heads. Decoding the runs and the heap over them
// were a quarter of the trace's merging thread (callgrind); what stays on
// the caller is a comparison per lane and a copy.
//
// The same records in the same order as sorted(): equal records come out
// by run, and the lanes hold consecutive runs, so ties between lanes go to
// the lower lane. Memory: each lane's read buffers share
// SpillSorter::kReadBudget / lanes (the same as one cursor), plus kBatches
// batches of kBatch records per lane.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tools/analysis/read/spill_sorter.h"

namespace gprof::analysis {

template <typename T, typename Less>
class SpillMerge {
 public:
  static constexpr size_t kBatch = 1024;  // records
  static constexpr size_t kBatches = 3;   // per lane, in flight

  // Seals `sorter` (sorted()); `lanes` at least 1, at most one per run.
  SpillMerge(SpillSorter<T, Less>& sorter, unsigned lanes, Less less = Less()) : less_(less) {
    const size_t runs = sorter.file_runs() + 1;  // the records in memory: one more
    const size_t n = std::clamp<size_t>(lanes, 1, runs);
    lanes_.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const size_t first = runs * i / n;
      const size_t end = runs * (i + 1) / n;
      lanes_.push_back(std::make_unique<Lane>(
          sorter.sorted_part(first, end, i + 1 == n, SpillSorter<T, Less>::kReadBudget / n)));
    }
    for (auto& lane : lanes_) {
      lane_list_.push_back(lane.get());
      lane->thread = std::thread([l = lane.get()] { l->run(); });
    }
  }
  ~SpillMerge() {
    for (auto& lane : lanes_) {
      {
        std::lock_guard lock(lane->mutex);
        lane->stopping = true;
      }
      lane->changed.notify_all();
      lane->thread.join();
    }
  }
  SpillMerge(const SpillMerge&) = delete;
  SpillMerge& operator=(const SpillMerge&) = delete;

  bool next(T& out) {
    const T* at = next();
    if (at == nullptr) return false;
    out = *at;
    return true;
  }
  // The next record, in place (valid until the next call); nullptr at the end.
  const T* next() {
    Lane* best = nullptr;
    for (Lane* lane : lane_list_) {
      if (!lane->has_current()) continue;
      // Strictly less: a tie stays with the lower lane (earlier runs).
      if (best == nullptr || less_(lane->current(), best->current())) best = lane;
    }
    if (best == nullptr) return nullptr;
    const T* at = &best->current();
    best->advance();
    return at;
  }

 private:
  using Cursor = typename SpillSorter<T, Less>::Cursor;

  struct Lane {
    explicit Lane(Cursor c) : cursor(std::move(c)) {
      for (size_t i = 0; i < kBatches; ++i) free.emplace_back().reserve(kBatch);
    }

    // The merging thread: fills batches until its runs are read.
    void run() {
      try {
        while (true) {
          std::vector<T> batch;
          {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return stopping || !free.empty(); });
            if (stopping) return;
            batch = std::move(free.back());
            free.pop_back();
          }
          batch.clear();
          T record;
          while (batch.size() < kBatch && cursor.next(record)) batch.push_back(record);
          const bool last = batch.size() < kBatch;
          {
            std::lock_guard lock(mutex);
            if (!batch.empty()) full.push_back(std::move(batch));
            finished = last;
          }
          changed.notify_all();
          if (last) return;
        }
      } catch (...) {  // a temporary file that cannot be read back
        {
          std::lock_guard lock(mutex);
          error = std::current_exception();
          finished = true;
        }
        changed.notify_all();
      }
    }

    // The caller's side: whether the lane has a record to give, waiting
    // for its next batch when the one in hand is used up.
    bool has_current() { return at < in_hand.size() || next_batch(); }
    bool next_batch() {
      if (done) return false;
      std::unique_lock lock(mutex);
      if (in_hand.capacity() != 0) free.push_back(std::move(in_hand));
      in_hand = std::vector<T>();
      changed.notify_all();
      changed.wait(lock, [&] { return !full.empty() || finished; });
      at = 0;
      if (!full.empty()) {
        in_hand = std::move(full.front());
        full.pop_front();
        return true;
      }
      if (error) std::rethrow_exception(error);
      done = true;
      return false;
    }
    const T& current() const { return in_hand[at]; }
    void advance() { ++at; }

    Cursor cursor;  // the merging thread's
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<std::vector<T>> full;  // merged batches, in order
    std::vector<std::vector<T>> free;
    bool finished = false;  // the merging thread is done
    bool stopping = false;
    std::exception_ptr error;
    std::thread thread;
    // The caller's.
    std::vector<T> in_hand;
    size_t at = 0;
    bool done = false;
  };

  Less less_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::vector<Lane*> lane_list_;  // the same, one load less per look
};

// A sealed sorter's records in order: through a SpillMerge with more than
// one lane when the sorter spilled, else through its own cursor.
template <typename T, typename Less>
class SortedRecords {
 public:
  SortedRecords(SpillSorter<T, Less>& sorter, unsigned lanes) {
    sorter.seal();
    if (lanes > 1 && sorter.file_runs() != 0)
      merge_ = std::make_unique<SpillMerge<T, Less>>(sorter, lanes);
    else
      cursor_ = std::make_unique<Cursor>(sorter.sorted());
  }
  bool next(T& out) { return merge_ ? merge_->next(out) : cursor_->next(out); }
  // The next record, in place (valid until the next call); nullptr at the end.
  const T* next() {
    if (merge_) return merge_->next();
    return cursor_->next(record_) ? &record_ : nullptr;
  }

 private:
  using Cursor = typename SpillSorter<T, Less>::Cursor;
  // Pointers, not optionals: GCC 12 sees the optionals' payloads as maybe
  // uninitialized.
  std::unique_ptr<Cursor> cursor_;
  std::unique_ptr<SpillMerge<T, Less>> merge_;
  T record_;  // the cursor's last
};

}  // namespace gprof::analysis
