// An index of ids (0, 1, ...) of values kept elsewhere, by the values'
// hashes: open addressing with linear probing over a power of two of
// slots, a slot holding an id + 1 (0: empty), at most half of them used.
// A slot takes 4 bytes where a hash map's node took about 40: the rows of
// key_averages.h and the labels of row_labels.h, millions with a row per op
// (--group-by seq).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gprof::analysis {

class IdIndex {
 public:
  // The slot of the id whose value `is(id)` recognizes, or the empty slot
  // where it would go; `hash`: the value's. Set an empty one to id + 1.
  template <typename Is>
  uint32_t& slot(size_t hash, Is&& is) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      uint32_t& s = slots_[i];
      if (s == 0 || is(s - 1)) return s;
    }
  }
  // Whether `ids` ids fit at most half of the slots.
  bool fits(size_t ids) const { return 2 * ids + 2 <= slots_.size(); }
  // Room for `room` ids, holding ids 0 ... count - 1 again (`hash_of(id)`).
  template <typename HashOf>
  void rebuild(size_t room, size_t count, HashOf&& hash_of) {
    size_t size = 16;
    while (size < 2 * room + 2) size *= 2;
    slots_.assign(size, 0);
    for (size_t id = 0; id < count; ++id)
      slot(hash_of(id), [](uint32_t) { return false; }) = static_cast<uint32_t>(id + 1);
  }
  size_t slot_count() const { return slots_.size(); }
  void clear() { slots_.clear(); }

 private:
  std::vector<uint32_t> slots_;
};

}  // namespace gprof::analysis
