// An external sort for fixed-size records, so that the trace's memory does
// not grow with the file: records are kept up to a budget, then each full
// buffer is sorted and written as a run to an anonymous temporary file
// (temp_file.h), each record against the one before it (spill_codec.h);
// sorted() merges the runs (a heap; the runs' read buffers share 4 MiB).
// When everything fits in one buffer no file is written. Equal records come out in the order
// they were added (each run is sorted stably; the merge breaks ties by run).
// A Less with a `prefix(record)` (a pair of integers that orders records as
// Less does, or ties) has its runs sorted as 64-bit keys that hold the
// prefix and the record's index (packed_order), and a run is encoded by
// reading its records in that order, never moving them: the trace's records
// are 128 bytes, and moving them through a merge sort cost more than
// comparing them. Plain uint64_t values in std::less order are radix-sorted.
// With spill_in_background(), a full buffer is sorted and written on a
// thread of its own while the next one fills (one spill at a time, so the
// runs and the file are the same; twice the buffer's memory): the spills
// are about a fifth of the trace's instructions.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "tools/analysis/read/spill_codec.h"
#include "tools/analysis/read/temp_file.h"

namespace gprof::analysis {

template <typename Less, typename T>
concept HasPrefix = requires(const T& record) {
  { Less::prefix(record) } -> std::same_as<std::pair<uint64_t, uint64_t>>;
};

template <typename T, typename Less>
class SpillSorter {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  using Order = Less;

  explicit SpillSorter(size_t budget_records = (size_t{8} << 20) / sizeof(T), Less less = Less())
      : budget_(std::max<size_t>(budget_records, 1)), less_(less) {}
  ~SpillSorter() { wait_for_spill(std::nothrow); }
  SpillSorter(SpillSorter&& other) noexcept { *this = std::move(other); }
  // Both sides' spills finish first: a spilling thread points at its sorter.
  SpillSorter& operator=(SpillSorter&& other) noexcept {
    wait_for_spill(std::nothrow);
    other.wait_for_spill(std::nothrow);
    budget_ = other.budget_;
    less_ = std::move(other.less_);
    buffer_ = std::move(other.buffer_);
    spare_ = std::move(other.spare_);
    runs_ = std::move(other.runs_);
    total_ = other.total_;
    added_ = other.added_;
    bytes_ = other.bytes_;
    encoded_ = std::move(other.encoded_);
    order_ = std::move(other.order_);
    packed_keys_ = std::move(other.packed_keys_);
    radix_spare_ = std::move(other.radix_spare_);
    file_ = std::move(other.file_);
    sealed_ = other.sealed_;
    background_ = other.background_;
    error_ = other.error_;
    return *this;
  }
  SpillSorter(const SpillSorter&) = delete;
  SpillSorter& operator=(const SpillSorter&) = delete;

  // Spills from now on on a thread of their own (see above).
  void spill_in_background() { background_ = true; }

  // The budget in records for `bytes` of records.
  static size_t records_in(size_t bytes) { return std::max<size_t>(bytes / sizeof(T), 1); }

  void add(const T& record) {
    if (sealed_) throw std::logic_error("SpillSorter: add after sorted()");
    if (buffer_.size() >= budget_) spill();
    // Room for the whole budget at once: growing a vector by doubling
    // copies it repeatedly. Pages never written cost no memory.
    if (buffer_.capacity() == 0) buffer_.reserve(std::min<size_t>(budget_, kReserveMax));
    buffer_.push_back(record);
    ++added_;
  }

  size_t size() const { return added_; }
  size_t runs() {
    wait_for_spill();
    return runs_.size();
  }

  // Pulls the records in order; any number of cursors may be opened, each
  // reads everything once.
  class Cursor {
   public:
    bool next(T& out) {
      if (heap_.empty()) return false;
      const size_t run = heap_.front().second;
      Source& s = sources_[run];
      out = *s.at;
      if (s.memory != nullptr) ++s.at;
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
      size_t left = 0;            // records of the run not yet read
      uint64_t offset = 0;        // next byte of the run in the file
      uint64_t bytes_left = 0;    // bytes of the run not yet read from the file
      std::vector<char> bytes;    // a block of a run in the file
      size_t pos = 0;             // next record's encoding in `bytes`
      size_t filled = 0;          // bytes of `bytes` read
      T decoded;                  // the current record of a run in the file
      const T* at = nullptr;      // the current record, in memory or decoded
      const T* end = nullptr;     // of the in-memory run
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

    // Runs [first, end) of the file, and the records in memory with
    // `memory`, their read buffers sharing `read_budget` bytes.
    Cursor(const SpillSorter& sorter, size_t first, size_t end, bool memory, size_t read_budget)
        : sorter_(sorter), after_{&sorter.less_} {
      sources_.resize(end - first + (memory ? 1 : 0));
      // The read buffers share a fixed budget, so that memory does not grow
      // with the number of runs (smaller reads when there are many).
      block_ = std::clamp<size_t>(read_budget / std::max<size_t>(sources_.size(), 1),
                                  2 * Codec::kMaxEncoded, kBlock);
      for (size_t i = first; i < end; ++i) {
        const Run& run = sorter.runs_[i];
        Source& s = sources_[i - first];
        s.offset = run.offset;
        s.bytes_left = run.bytes;
        s.left = run.records;
      }
      if (memory) {
        Source& in_memory = sources_.back();
        in_memory.memory = sorter.buffer_.data();
        in_memory.left = sorter.buffer_.size();
      }
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

    // Whether the source has a current record: the next one of its run in
    // memory, or the next one decoded, reading the run's next block when
    // what is left of the buffer may not hold a whole record.
    bool refill(Source& s) {
      if (s.memory != nullptr) {
        if (s.at != s.end) return true;
        if (s.left == 0) return false;
        s.at = s.memory;  // all of it at once: no copy
        s.end = s.memory + s.left;
        s.left = 0;
        return true;
      }
      if (s.left == 0) return false;
      if (s.filled - s.pos < Codec::kMaxEncoded && s.bytes_left != 0) {
        const size_t kept = s.filled - s.pos;
        if (s.bytes.size() < block_ + Codec::kSlack) s.bytes.resize(block_ + Codec::kSlack);
        std::memmove(s.bytes.data(), s.bytes.data() + s.pos, kept);
        const size_t n = static_cast<size_t>(std::min<uint64_t>(s.bytes_left, block_ - kept));
        sorter_.file_->read(s.offset, s.bytes.data() + kept, n);
        s.offset += n;
        s.bytes_left -= n;
        s.pos = 0;
        s.filled = kept + n;
      }
      if (s.at == nullptr) s.decoded = T{};  // a run's first record: against zeros
      s.pos =
          static_cast<size_t>(Codec::decode(s.decoded, s.bytes.data() + s.pos) - s.bytes.data());
      --s.left;
      s.at = &s.decoded;
      return true;
    }

    static constexpr size_t kBlock = size_t{64} << 10;  // bytes
    size_t block_ = kBlock;
    const SpillSorter& sorter_;
    std::vector<Source> sources_;
    After after_;
    std::vector<Head> heap_;  // a max-heap by After: the next record on top
  };

  // Sorts what is left in memory; no add() afterwards.
  Cursor sorted() {
    seal();
    return Cursor(*this, 0, runs_.size(), true, kReadBudget);
  }

  // Sorts what is left in memory, as sorted() does, without a cursor.
  void seal() {
    if (sealed_) return;
    wait_for_spill();
    spare_ = std::vector<T>();
    sort_buffer(buffer_);
    packed_keys_ = std::vector<uint64_t>();
    radix_spare_ = std::vector<uint64_t>();
    sealed_ = true;
  }

  // Part of sorted(), for merging parts on several threads
  // (spill_merge.h): the runs [first, end) of those in the file, and the
  // records kept in memory (a run after them) with `memory`; their read
  // buffers share `read_budget` bytes. Cursors read the file with pread:
  // several may read at once, each on one thread.
  Cursor sorted_part(size_t first, size_t end, bool memory, size_t read_budget) {
    seal();
    return Cursor(*this, first, std::min(end, runs_.size()), memory, read_budget);
  }
  // The runs in the file, once sealed (sorted()).
  size_t file_runs() const { return runs_.size(); }
  static constexpr size_t kReadBudget = size_t{4} << 20;  // bytes, a cursor's runs together

 private:
  // Stably, as std::stable_sort would: in place, each record moved once.
  void sort_buffer(std::vector<T>& records) {
    std::vector<uint32_t> order;
    if (!sorted_order(records, order)) return;
    // The permutation applied in place, cycle by cycle, so that sorting
    // needs no second buffer of records.
    constexpr uint32_t kDone = UINT32_MAX;
    for (size_t start = 0; start < order.size(); ++start) {
      if (order[start] == kDone || order[start] == start) continue;
      T held = records[start];
      size_t at = start;
      while (true) {
        const uint32_t from = order[at];
        order[at] = kDone;
        if (from == start) {
          records[at] = held;
          break;
        }
        records[at] = records[from];
        at = from;
      }
    }
  }

  // The stable order of `records` as indices (order[k]: the k-th record's
  // index), or false when they are in order already (then `order` is left
  // empty). A run is written through the order (write_run), so that its
  // records, ~128 bytes each, are not moved at all.
  bool sorted_order(std::vector<T>& records, std::vector<uint32_t>& order) {
    if constexpr (std::is_same_v<T, uint64_t> && std::is_same_v<Less, std::less<uint64_t>>) {
      // Plain values (medians): sorted where they are, by their bytes.
      radix_sort(records, 0, radix_spare_);
      return false;
    } else if constexpr (HasPrefix<Less, T>) {
      if (records.size() < 2) return false;
      if (packed_order(records, order)) return !order.empty();
      keyed_order(records, order);
      return !order.empty();
    } else {
      std::stable_sort(records.begin(), records.end(), less_);
      return false;
    }
  }

  // The prefixes and the index packed into one integer, as the spans of
  // the prefixes in this buffer and the index need (a buffer's tracks, times
  // or ids span a few bits each): (first - min) above (second - min) above
  // the index. Integers in order are the records in Less's order up to equal
  // prefixes, which are then sorted by Less; the index makes it stable.
  // About a third of the instructions of sorting the prefixes and indices
  // (24 bytes a key) and fewer bytes moved per pass. False when the first's
  // span and the index alone do not fit in 64 bits.
  bool packed_order(const std::vector<T>& records, std::vector<uint32_t>& order) {
    const size_t n = records.size();
    auto [low_first, low_second] = Less::prefix(records[0]);
    uint64_t high_first = low_first;
    uint64_t high_second = low_second;
    for (const T& r : records) {
      const auto [first, second] = Less::prefix(r);
      low_first = std::min(low_first, first);
      high_first = std::max(high_first, first);
      low_second = std::min(low_second, second);
      high_second = std::max(high_second, second);
    }
    const int index_bits = std::bit_width(n - 1);
    int second_bits = std::bit_width(high_second - low_second);
    const int first_bits = std::bit_width(high_first - low_first);
    // Too wide: the second's low bits are left out, and records whose keys
    // then tie are put in order by Less (a buffer of ranges by start can
    // hold one that started long before the others).
    const int dropped = std::max(0, index_bits + second_bits + first_bits - 64);
    if (dropped > second_bits) return false;
    second_bits -= dropped;
    const int second_shift = index_bits;
    const int first_shift = index_bits + second_bits;  // < 64 unless first_bits is 0
    const auto shifted = [](uint64_t value, int shift) { return shift >= 64 ? 0 : value << shift; };
    // Scratch kept from run to run: a buffer of a few MiB made anew for
    // each was zeroed and faulted in again every time.
    std::vector<uint64_t>& keys = packed_keys_;
    keys.resize(n);
    bool in_order = true;
    for (size_t i = 0; i < n; ++i) {
      const auto [first, second] = Less::prefix(records[i]);
      keys[i] = shifted(first - low_first, first_shift) |
                shifted((second - low_second) >> dropped, second_shift) | i;
      // Equal prefixes are in order if Less says so (a call, then its flows).
      if (i > 0 && in_order) {
        const uint64_t a = keys[i - 1] >> index_bits;
        const uint64_t b = keys[i] >> index_bits;
        if (b < a || (b == a && less_(records[i], records[i - 1]))) in_order = false;
      }
    }
    order.clear();
    if (in_order) return true;
    radix_sort(keys, index_bits / 8, radix_spare_);
    const uint64_t index_mask = index_bits == 0 ? 0 : ~uint64_t{0} >> (64 - index_bits);
    order.resize(n);
    for (size_t k = 0; k < n; ++k) order[k] = static_cast<uint32_t>(keys[k] & index_mask);
    // Runs of equal prefixes, in the order added: by Less, stably. Most are
    // a few records (low bits of a time left out): sorted by insertion, as
    // std::stable_sort's buffer for each was a tenth of report's launches view.
    const auto before = [this, &records](uint32_t a, uint32_t b) {
      return less_(records[a], records[b]);
    };
    for (size_t from = 0; from < n;) {
      size_t to = from + 1;
      while (to < n && keys[to] >> index_bits == keys[from] >> index_bits) ++to;
      if (to - from > kInsertionMax) {
        std::stable_sort(order.begin() + from, order.begin() + to, before);
      } else {
        for (size_t i = from + 1; i < to; ++i) {
          const uint32_t moving = order[i];
          size_t j = i;
          for (; j > from && before(moving, order[j - 1]); --j) order[j] = order[j - 1];
          order[j] = moving;
        }
      }
      from = to;
    }
    return true;
  }

  static constexpr size_t kInsertionMax = 16;

  // Sorts 64-bit keys: a stable radix sort, least significant byte first,
  // on the bytes from `first_byte` up that are not the same in every key
  // (a pass each; the histograms of all of them in one pass). The bytes
  // below `first_byte` hold only the index, already in order.
  // `other`: scratch, swapped with `keys` as the passes go.
  static void radix_sort(std::vector<uint64_t>& keys, int first_byte,
                         std::vector<uint64_t>& other) {
    if (keys.size() < kRadixMin) {  // the keys are distinct: std::sort is stable here
      std::sort(keys.begin(), keys.end());
      return;
    }
    uint64_t differ = 0;
    for (const uint64_t k : keys) differ |= k ^ keys[0];
    int bytes[8];
    int passes = 0;
    for (int byte = first_byte; byte < 8; ++byte)
      if ((differ >> (8 * byte) & 0xff) != 0) bytes[passes++] = byte;
    if (passes == 0) return;
    std::vector<std::array<uint32_t, 256>> count(static_cast<size_t>(passes));
    for (auto& c : count) c.fill(0);
    for (const uint64_t k : keys)
      for (int p = 0; p < passes; ++p) ++count[p][k >> (8 * bytes[p]) & 0xff];
    other.resize(keys.size());
    for (int p = 0; p < passes; ++p) {
      uint32_t sum = 0;
      for (uint32_t& c : count[p]) sum += std::exchange(c, sum);
      const int shift = 8 * bytes[p];
      for (const uint64_t k : keys) other[count[p][k >> shift & 0xff]++] = k;
      keys.swap(other);
    }
  }

  // The order when the prefixes do not pack: small (prefix, index) keys
  // sorted, then the order taken from them.
  void keyed_order(const std::vector<T>& records, std::vector<uint32_t>& order) {
    struct Key {
      std::pair<uint64_t, uint64_t> prefix;
      uint32_t index;
    };
    std::vector<Key> keys(records.size());
    for (size_t i = 0; i < records.size(); ++i)
      keys[i] = Key{Less::prefix(records[i]), static_cast<uint32_t>(i)};
    const auto before = [this, &records](const Key& a, const Key& b) {
      if (a.prefix != b.prefix) return a.prefix < b.prefix;
      const T& x = records[a.index];
      const T& y = records[b.index];
      if (less_(x, y)) return true;
      if (less_(y, x)) return false;
      return a.index < b.index;
    };
    order.clear();
    // Records mostly come in order (a thread's calls, GPU work by
    // correlation, a stream's work by time): the runs already in order
    // are merged, which costs a pass per doubling of the runs instead of
    // a full sort. Many short runs are sorted.
    std::vector<size_t> bounds{0};
    for (size_t i = 1; i < keys.size(); ++i)
      if (before(keys[i], keys[i - 1])) bounds.push_back(i);
    bounds.push_back(keys.size());
    if (bounds.size() == 2) return;  // in order already
    if (bounds.size() - 1 > keys.size() / kMergedRunLength) {
      radix_sort(keys, before);
    } else {
      std::vector<Key> merged(keys.size());
      while (bounds.size() > 2) {
        std::vector<size_t> next{0};
        for (size_t r = 0; r + 1 < bounds.size(); r += 2) {
          const size_t from = bounds[r];
          const size_t middle = bounds[r + 1];
          const size_t to = r + 2 < bounds.size() ? bounds[r + 2] : middle;
          std::merge(keys.begin() + from, keys.begin() + middle, keys.begin() + middle,
                     keys.begin() + to, merged.begin() + from, before);
          next.push_back(to);
        }
        keys.swap(merged);
        bounds.swap(next);
      }
    }
    order.resize(keys.size());
    for (size_t k = 0; k < keys.size(); ++k) order[k] = keys[k].index;
  }

  void spill() {
    if (!background_) {
      write_run(buffer_);
      return;
    }
    wait_for_spill();
    std::swap(buffer_, spare_);
    spiller_ = std::thread([this] {
      try {
        write_run(spare_);
      } catch (...) {
        error_ = std::current_exception();
      }
    });
  }

  // The spill in flight done; its error (the temporary file's) rethrown.
  void wait_for_spill() {
    if (spiller_.joinable()) spiller_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }
  void wait_for_spill(std::nothrow_t) noexcept {
    if (spiller_.joinable()) spiller_.join();
  }

  // Sorts `keys` (a prefix and an index each) as std::sort by `before`
  // would: a stable radix sort on the bytes of the prefix that differ (a
  // pass each; a buffer's times share their high bytes), then `before` on
  // each run of equal prefixes (a call and its flow starts). About a third
  // of the comparisons' instructions on the trace's events (callgrind).
  template <typename Key, typename Before>
  static void radix_sort(std::vector<Key>& keys, const Before& before) {
    if (keys.size() < kRadixMin) {
      std::sort(keys.begin(), keys.end(), before);
      return;
    }
    uint64_t differ[2] = {0, 0};  // bits that are not the same in every prefix
    for (const Key& k : keys) {
      differ[0] |= k.prefix.first ^ keys[0].prefix.first;
      differ[1] |= k.prefix.second ^ keys[0].prefix.second;
    }
    std::vector<Key> other(keys.size());
    // Least significant first: the second integer's bytes, then the first's.
    for (int word = 1; word >= 0; --word) {
      for (int byte = 0; byte < 8; ++byte) {
        const int shift = 8 * byte;
        if ((differ[word] >> shift & 0xff) == 0) continue;
        size_t count[257] = {};
        for (const Key& k : keys)
          ++count[((word == 0 ? k.prefix.first : k.prefix.second) >> shift & 0xff) + 1];
        for (size_t i = 1; i < 257; ++i) count[i] += count[i - 1];
        for (const Key& k : keys)
          other[count[(word == 0 ? k.prefix.first : k.prefix.second) >> shift & 0xff]++] = k;
        keys.swap(other);
      }
    }
    for (size_t from = 0; from < keys.size();) {
      size_t to = from + 1;
      while (to < keys.size() && keys[to].prefix == keys[from].prefix) ++to;
      if (to - from > 1) std::sort(keys.begin() + from, keys.begin() + to, before);
      from = to;
    }
  }

  // `records` sorted and written as a run; emptied.
  void write_run(std::vector<T>& records) {
    const bool reordered = sorted_order(records, order_);
    if (!file_) file_ = std::make_unique<TempFile>("sorting");
    // Encoded a block at a time: no second buffer the size of the run.
    constexpr size_t kChunk = size_t{256} << 10;
    if (encoded_.size() < kChunk + Codec::kMaxEncoded + Codec::kSlack)
      encoded_.resize(kChunk + Codec::kMaxEncoded + Codec::kSlack);
    const uint64_t offset = bytes_;
    static constexpr T kZero{};
    const T* previous = &kZero;
    char* at = encoded_.data();
    for (size_t k = 0; k < records.size(); ++k) {
      const T& record = records[reordered ? order_[k] : k];
      at = Codec::encode(*previous, record, at);
      previous = &record;
      if (static_cast<size_t>(at - encoded_.data()) >= kChunk) {
        write_encoded(at);
        at = encoded_.data();
      }
    }
    write_encoded(at);
    runs_.push_back(Run{offset, bytes_ - offset, records.size()});
    total_ += records.size();
    records.clear();
  }

  void write_encoded(const char* end) {
    const size_t n = static_cast<size_t>(end - encoded_.data());
    file_->append(encoded_.data(), n);
    bytes_ += n;
  }

  static constexpr size_t kReserveMax = (size_t{256} << 20) / sizeof(T);
  // Runs in order shorter than this on average are sorted, not merged.
  static constexpr size_t kMergedRunLength = 16;
  // Fewer keys than this are sorted by comparisons.
  static constexpr size_t kRadixMin = 256;
  size_t budget_;
  Less less_;
  std::vector<T> buffer_;
  std::vector<T> spare_;  // the buffer being spilled in the background
  struct Run {
    uint64_t offset;  // in file_
    uint64_t bytes;
    size_t records;
  };
  using Codec = SpillCodec<T>;
  std::vector<Run> runs_;
  size_t total_ = 0;  // records in file_
  size_t added_ = 0;
  uint64_t bytes_ = 0;  // of file_
  std::vector<char> encoded_;
  std::vector<uint32_t> order_;        // write_run's, kept for the next run
  std::vector<uint64_t> packed_keys_;  // packed_order's, kept for the next run
  std::vector<uint64_t> radix_spare_;  // radix_sort's, kept for the next run
  std::unique_ptr<TempFile> file_;
  bool sealed_ = false;
  bool background_ = false;
  std::thread spiller_;
  std::exception_ptr error_;
};

}  // namespace gprof::analysis
