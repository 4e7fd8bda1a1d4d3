// One row of a key-averages table (docs/architecture.md §7): every event of one key,
// summed. Columns with nothing in them (no GPU records, no allocations) stay
// zero and the renderer leaves them out, as PyTorch does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/record.h"

namespace gprof::analysis {

// What the row's events are (each kind is also its own view).
enum class RowKind : uint8_t {
  kRange,   // NVTX range (user annotation)
  kApi,     // CUDA API call on a CPU thread
  kGpu,     // GPU activity: kernel, memcpy, memset
  kMemory,  // "[memory]": allocations and frees outside any range
};

// A row's numbers, without what names it: what the walks add to while a
// file is read (one per label: with a row per op, --group-by seq, these are
// most of a report's memory).
struct RowValues {
  uint64_t count = 0;  // # of Calls
  // CPU side (ranges and API calls; zero for GPU activities).
  uint64_t self_cpu_ns = 0;   // minus direct children on the same thread
  uint64_t cpu_total_ns = 0;  // nested events of the same key counted once
  // GPU side: an activity's own duration (self = total); for a range, the
  // activities issued directly inside it (self) or with descendants. Zero
  // for API calls: as in torch, their GPU work belongs to the range.
  uint64_t self_device_ns = 0;
  uint64_t device_total_ns = 0;
  // API calls: GPU time of the work the calls issued ("GPU time" and "GPU
  // time avg" of --view api; nowhere in Self CUDA totals).
  uint64_t issued_device_ns = 0;
  // Bytes allocated minus freed inside the event (self: not inside a child).
  int64_t cpu_mem = 0;
  int64_t self_cpu_mem = 0;
  int64_t device_mem = 0;
  int64_t self_device_mem = 0;

  // "CPU time avg" / "CUDA time avg": totals over # of Calls.
  double cpu_avg_ns() const {
    return count == 0 ? 0.0 : static_cast<double>(cpu_total_ns) / static_cast<double>(count);
  }
  double device_avg_ns() const {
    return count == 0 ? 0.0 : static_cast<double>(device_total_ns) / static_cast<double>(count);
  }
  double issued_avg_ns() const {
    return count == 0 ? 0.0 : static_cast<double>(issued_device_ns) / static_cast<double>(count);
  }
};

struct Row : RowValues {
  std::string name;
  RowKind kind = RowKind::kApi;
  GpuKind gpu_kind{};  // kGpu rows: what ran (kernel, memcpy, memset)
  // The --group-by value that is part of the key ("grid=[4096, 1, 1] ...",
  // a stream, a thread...); empty when grouping by name or not applicable.
  std::string group;
};

// Whether any bytes were allocated or freed in the row's events.
inline bool has_memory(const RowValues& row) {
  return row.cpu_mem != 0 || row.device_mem != 0 || row.self_cpu_mem != 0 ||
         row.self_device_mem != 0;
}

// Adds `from`'s numbers (count, times, memory) to `to`'s.
void add_row_values(RowValues& to, const RowValues& from);

// A [memory] row's share of one allocation or free: `bytes` in device or
// host memory, self = total (an event of its own, outside any range).
void add_memory_event(RowValues& row, bool device, int64_t bytes);

// What the row is, as the JSON report and diff name it: "range", "api",
// "memory", "kernel", "memcpy" or "memset".
std::string_view row_kind_name(const Row& row);

}  // namespace gprof::analysis
