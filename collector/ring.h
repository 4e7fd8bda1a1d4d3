// A single-producer single-consumer ring of fixed-size records: the calling
// thread pushes, the writer thread pops. No locks, no allocation on push.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>

#include "formats/record.h"

namespace gprof {

enum class RingState : int { kFree, kOwned, kOrphaned };

struct alignas(64) Ring {
  alignas(64) std::atomic<uint64_t> head{0};  // next slot to pop (writer)
  alignas(64) std::atomic<uint64_t> tail{0};  // next slot to push (owner)
  // The owner's last look at head: re-read only when the ring seems full, so
  // pushes do not pull the writer's cache line on every call.
  uint64_t cached_head = 0;
  alignas(64) std::atomic<int> state{static_cast<int>(RingState::kFree)};
  std::atomic<uint32_t> tid{0};
  std::atomic<bool> mapped{false};  // slots and mask are valid (published once)
  uint64_t mask = 0;                // capacity - 1; capacity is a power of two
  ApiRecord* slots = nullptr;

  enum class Push { kOk, kHalfFull, kFull };

  // Owner thread only. kFull: dropped, the caller counts the loss.
  // kHalfFull is returned once per fill, when the ring crosses half its
  // capacity, so the caller can wake the writer early.
  // Either record type: both are one 96-byte slot (formats/record.h).
  template <typename Record>
  Push push(const Record& record) {
    static_assert(sizeof(Record) == sizeof(ApiRecord));
    uint64_t t = tail.load(std::memory_order_relaxed);
    uint64_t used = t - cached_head;
    if (used > mask) {
      cached_head = head.load(std::memory_order_acquire);
      used = t - cached_head;
      if (used > mask) return Push::kFull;
    }
    std::memcpy(static_cast<void*>(&slots[t & mask]), &record, sizeof record);
    tail.store(t + 1, std::memory_order_release);
    return used == (mask >> 1) ? Push::kHalfFull : Push::kOk;
  }

  // Writer only: calls `f` on up to `max` records, oldest first.
  template <typename F>
  uint64_t drain(uint64_t max, F&& f) {
    uint64_t h = head.load(std::memory_order_relaxed);
    uint64_t t = tail.load(std::memory_order_acquire);
    uint64_t n = t - h < max ? t - h : max;
    for (uint64_t i = 0; i < n; ++i) f(slots[(h + i) & mask]);
    head.store(h + n, std::memory_order_release);
    return n;
  }

  bool empty() const {
    return head.load(std::memory_order_acquire) == tail.load(std::memory_order_acquire);
  }
};

}  // namespace gprof
