// Why something the shim saw did not reach the file whole: one table for the
// collector's counters (collector/queues/loss_counters.h) and the readers' notes,
// written into the footer (pb::Loss) by name (docs/architecture.md §2.2). Most reasons
// count records that never reached the file; the others count events around
// records: CUPTI's requests for a buffer the pool could not give (the
// records CUPTI then dropped are counted as cupti_dropped), and names a full
// table could not hold (their records are kept, with id 0 or the text inline).
#pragma once

#include <string_view>

// X(enumerator, name in the footer, counts records that never reached the file)
#define GPROF_LOSS_REASONS(X)                                                \
  /* GPROF_ON_FULL=drop and the queues held GPROF_MAX_MEMORY */              \
  X(kRingFull, "ring_full", true)                                            \
  /* a thread's queue could not be mapped */                                 \
  X(kNoRing, "no_ring", true)                                                \
  /* records drained after the file failed (ENOSPC, EIO) */                  \
  X(kWriteError, "write_error", true)                                        \
  /* the writer could not allocate while encoding */                         \
  X(kEncodeError, "encode_error", true)                                      \
  /* kernel names beyond the table's capacity (records keep id 0) */         \
  X(kKernelTableFull, "kernel_table_full", false)                            \
  /* CUPTI's own count (cuptiActivityGetNumDroppedRecords) */                \
  X(kCuptiDropped, "cupti_dropped", true)                                    \
  /* CUPTI asked for a buffer while the whole pool was in use */             \
  X(kCuptiNoBuffer, "cupti_no_buffer", false)                                \
  /* activity records without timestamps (start = end = 0) */                \
  X(kCuptiZeroTimestamp, "cupti_zero_timestamp", true)                       \
  /* buffers or records gprof could not read */                              \
  X(kCuptiParseError, "cupti_parse_error", true)                             \
  /* NVTX strings the table could not hold (stored with their events) */     \
  X(kStringTableFull, "string_table_full", false)                            \
  /* a hold at the cap outlasted GPROF_MAX_WAIT_MS, or the writer stopped */ \
  X(kWaitTimeout, "wait_timeout", true)                                      \
  /* a CUPTI EXIT callback without its ENTER: the call's start is unknown */ \
  X(kCuptiUnmatchedExit, "cupti_unmatched_exit", true)                       \
  /* a call still inside the runtime when the last drain read its queue */   \
  X(kInFlightAtExit, "in_flight_at_exit", true)

namespace gprof {

// Whether a footer's reason counts lost records; a reason this build does not
// know (a newer shim's) is taken as one.
constexpr bool loss_reason_counts_records(std::string_view name) {
#define GPROF_LOSS_REASON_RECORDS(id, text, records) \
  if (name == text) return records;
  GPROF_LOSS_REASONS(GPROF_LOSS_REASON_RECORDS)
#undef GPROF_LOSS_REASON_RECORDS
  return true;
}

}  // namespace gprof
