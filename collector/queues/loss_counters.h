// Every record that does not reach the file is counted here, per reason, and
// the counts are written to the footer (docs/architecture.md §2.2).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "formats/loss_reasons.h"

namespace gprof {

enum class LossReason : int {
#define GPROF_LOSS_REASON_ENUM(id, text, records) id,
  GPROF_LOSS_REASONS(GPROF_LOSS_REASON_ENUM)
#undef GPROF_LOSS_REASON_ENUM
      kCount
};

inline constexpr const char* kLossReasonNames[] = {
#define GPROF_LOSS_REASON_NAME(id, text, records) text,
    GPROF_LOSS_REASONS(GPROF_LOSS_REASON_NAME)
#undef GPROF_LOSS_REASON_NAME
};
static_assert(sizeof kLossReasonNames / sizeof kLossReasonNames[0] ==
              static_cast<size_t>(LossReason::kCount));

// Whether a reason counts records that never reached the file (loss_reasons.h).
constexpr bool counts_lost_records(LossReason reason) {
  return loss_reason_counts_records(kLossReasonNames[static_cast<int>(reason)]);
}

class LossCounters {
 public:
  void add(LossReason reason, uint64_t n = 1) {
    counts_[static_cast<int>(reason)].fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t get(LossReason reason) const {
    return counts_[static_cast<int>(reason)].load(std::memory_order_relaxed);
  }
  void reset() {
    for (auto& c : counts_) c.store(0, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> counts_[static_cast<int>(LossReason::kCount)] = {};
};

LossCounters& losses();

// GPROF_ON_FULL=wait: how often and how long threads were held at the cap.
class HoldCounters {
 public:
  void add(uint64_t ns) {
    holds_.fetch_add(1, std::memory_order_relaxed);
    held_ns_.fetch_add(ns, std::memory_order_relaxed);
    uint64_t longest = max_ns_.load(std::memory_order_relaxed);
    while (ns > longest && !max_ns_.compare_exchange_weak(longest, ns, std::memory_order_relaxed)) {
    }
  }
  uint64_t holds() const { return holds_.load(std::memory_order_relaxed); }
  uint64_t held_ns() const { return held_ns_.load(std::memory_order_relaxed); }
  uint64_t max_ns() const { return max_ns_.load(std::memory_order_relaxed); }
  // Chunk groups a recording thread mapped itself because the writer had not
  // stocked the pool in time (below the cap, instead of a hold).
  void add_thread_map() { thread_maps_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t thread_maps() const { return thread_maps_.load(std::memory_order_relaxed); }
  void reset() {
    thread_maps_.store(0, std::memory_order_relaxed);
    holds_.store(0, std::memory_order_relaxed);
    held_ns_.store(0, std::memory_order_relaxed);
    max_ns_.store(0, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> holds_{0};
  std::atomic<uint64_t> held_ns_{0};
  std::atomic<uint64_t> max_ns_{0};
  std::atomic<uint64_t> thread_maps_{0};
};

HoldCounters& holds();

}  // namespace gprof
