// Every record that does not reach the file is counted here, per reason, and
// the counts are written to the footer (DESIGN.md §2.6).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gprof {

enum class LossReason : int {
  kRingFull,            // the thread's ring was full: the writer fell behind
  kNoRing,              // more threads than GPROF_MAX_THREADS, or a ring could not be mapped
  kWriteError,          // records drained after the file failed (ENOSPC, EIO)
  kEncodeError,         // the writer could not allocate while encoding
  kKernelTableFull,     // kernel names beyond the table's capacity (records keep id 0)
  kCuptiDropped,        // CUPTI's own count (cuptiActivityGetNumDroppedRecords)
  kCuptiNoBuffer,       // CUPTI asked for a buffer while the whole pool was in use
  kCuptiZeroTimestamp,  // activity records without timestamps (start = end = 0)
  kCuptiParseError,     // buffers or records gprof could not read
  kStringTableFull,     // NVTX strings beyond the table's capacity (events keep id 0)
  kCount
};

inline constexpr const char* kLossReasonNames[] = {
    "ring_full",         "no_ring",          "write_error",     "encode_error",
    "kernel_table_full", "cupti_dropped",    "cupti_no_buffer", "cupti_zero_timestamp",
    "cupti_parse_error", "string_table_full"};
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

}  // namespace gprof
