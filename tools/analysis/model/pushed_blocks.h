// A small value (a snapshot of rows, a group tag) for each call pushed out
// of the pairing table (call_slots.h) whose GPU work may still come, kept in
// bounded memory so that the work can be placed as it comes, without a sort
// on disk: calls are kept in blocks of kBlockIds correlation ids, each a byte
// per id naming one of the block's distinct values (at most 255), about
// 1 KiB a block. Past `max_blocks` blocks the oldest goes to disk, as does a
// block that meets a 256th value: the owner is handed its calls (evict) and
// from then on keeps that block's calls itself (keep() says so), and joins
// them with their late work once the file has ended.
//
// A GPU that falls seconds behind a launch loop delivers its work millions
// of calls late; calls are pushed in about id order, so the blocks in memory
// are the latest ones, kMaxBlocks × kBlockIds ids (16M) behind the reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gprof::analysis {

class PushedBlocks {
 public:
  static constexpr uint64_t kBlockIds = 1024;
  static constexpr size_t kMaxBlocks = size_t{1} << 14;
  static constexpr uint32_t kNone = UINT32_MAX;

  explicit PushedBlocks(size_t max_blocks = kMaxBlocks) : max_blocks_(max_blocks) {}

  // Keeps `value` for call `correlation`. False when its block is on disk,
  // or goes there now, or the value is kNone: the owner keeps the call. `evict(id,
  // value)` is handed every call of a block that goes to disk.
  template <typename Evict>
  bool keep(uint64_t correlation, uint32_t value, Evict&& evict);
  // The value of a call kept in memory; kNone for any other.
  uint32_t find(uint64_t correlation) {
    const Block* block = resident(correlation / kBlockIds);
    if (block == nullptr) return kNone;
    const uint8_t at = block->index[correlation % kBlockIds];
    return at == 0 ? kNone : block->values[at - 1];
  }
  size_t blocks_in_memory() const { return resident_.size(); }

 private:
  struct Block {
    std::vector<uint32_t> values;  // at most 255
    std::vector<uint8_t> index;    // per id: 0 (not kept) or 1 + its value's place
  };
  Block* resident(uint64_t number) {
    if (number == last_number_) return last_;
    const auto it = resident_.find(number);
    last_number_ = number;
    last_ = it == resident_.end() ? nullptr : &it->second;
    return last_;
  }
  template <typename Evict>
  void to_disk(uint64_t number, Evict&& evict);

  size_t max_blocks_;
  std::unordered_map<uint64_t, Block> resident_;  // by number (id / kBlockIds)
  std::deque<uint64_t> arrival_;                  // their numbers, oldest first
  std::unordered_set<uint64_t> on_disk_;          // blocks that went to disk
  uint64_t last_number_ = UINT64_MAX;             // resident()'s last answer
  Block* last_ = nullptr;
};

template <typename Evict>
bool PushedBlocks::keep(uint64_t correlation, uint32_t value, Evict&& evict) {
  const uint64_t number = correlation / kBlockIds;
  Block* block = resident(number);
  if (value == kNone) return false;
  if (block == nullptr) {
    if (max_blocks_ == 0 || on_disk_.count(number) != 0) return false;
    while (resident_.size() >= max_blocks_) {
      const uint64_t oldest = arrival_.front();
      arrival_.pop_front();
      if (resident_.count(oldest) != 0) to_disk(oldest, evict);
    }
    block = &resident_[number];
    block->index.assign(kBlockIds, 0);
    arrival_.push_back(number);
    last_number_ = number;
    last_ = block;
  }
  std::vector<uint32_t>& values = block->values;
  size_t at = values.size();
  // The latest values first: a loop's calls repeat the last few.
  for (size_t i = values.size(); i-- > 0;)
    if (values[i] == value) {
      at = i;
      break;
    }
  if (at == values.size()) {
    if (values.size() == 255) {
      to_disk(number, evict);
      return false;
    }
    values.push_back(value);
  }
  block->index[correlation % kBlockIds] = static_cast<uint8_t>(at + 1);
  return true;
}

template <typename Evict>
void PushedBlocks::to_disk(uint64_t number, Evict&& evict) {
  const auto it = resident_.find(number);
  const Block& block = it->second;
  for (uint64_t i = 0; i < kBlockIds; ++i)
    if (block.index[i] != 0) evict(number * kBlockIds + i, block.values[block.index[i] - 1]);
  resident_.erase(it);
  on_disk_.insert(number);
  last_number_ = UINT64_MAX;
  last_ = nullptr;
}

}  // namespace gprof::analysis
