// Every record that does not reach the file is counted here, per reason, and
// the counts are written to the footer (DESIGN.md §2.6).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gprof {

enum class LossReason : int {
  kRingFull,            // GPROF_ON_FULL=drop and the queues held GPROF_MAX_MEMORY
  kNoRing,              // a thread's queue could not be mapped
  kWriteError,          // records drained after the file failed (ENOSPC, EIO)
  kEncodeError,         // the writer could not allocate while encoding
  kKernelTableFull,     // kernel names beyond the table's capacity (records keep id 0)
  kCuptiDropped,        // CUPTI's own count (cuptiActivityGetNumDroppedRecords)
  kCuptiNoBuffer,       // CUPTI asked for a buffer while the whole pool was in use
  kCuptiZeroTimestamp,  // activity records without timestamps (start = end = 0)
  kCuptiParseError,     // buffers or records gprof could not read
  kStringTableFull,     // NVTX strings the table could not hold (stored with their events)
  kWaitTimeout,         // a hold at the cap outlasted GPROF_MAX_WAIT_MS, or the writer stopped
  kCuptiUnmatchedExit,  // a CUPTI EXIT callback without its ENTER: the call's start is unknown
  kInFlightAtExit,      // a call still inside the runtime when the last drain read its queue
  kCount
};

inline constexpr const char* kLossReasonNames[] = {
    "ring_full",         "no_ring",           "write_error",     "encode_error",
    "kernel_table_full", "cupti_dropped",     "cupti_no_buffer", "cupti_zero_timestamp",
    "cupti_parse_error", "string_table_full", "wait_timeout",    "cupti_unmatched_exit",
    "in_flight_at_exit"};
static_assert(sizeof kLossReasonNames / sizeof kLossReasonNames[0] ==
              static_cast<size_t>(LossReason::kCount));

// Whether a reason counts records that never reached the file. The others
// count events around records: CUPTI's requests for a buffer the pool could
// not give (the records CUPTI then dropped are in kCuptiDropped), and names
// a full table could not hold (their records are kept, with id 0).
constexpr bool counts_lost_records(LossReason reason) {
  return reason != LossReason::kCuptiNoBuffer && reason != LossReason::kKernelTableFull &&
         reason != LossReason::kStringTableFull;
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
