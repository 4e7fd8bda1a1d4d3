// One row of a key-averages table (DESIGN.md §5): every event of one key,
// summed. The GPU and memory columns are part of the model now so that they
// slot in when GPU activities and allocations are recorded; until then they
// stay zero and the renderer leaves their columns out, as PyTorch does.
#pragma once

#include <cstdint>
#include <string>

namespace gprof::analysis {

// What the row's events are (each kind is also its own view).
enum class RowKind : uint8_t {
  kRange,  // NVTX range (user annotation)
  kApi,    // CUDA API call on a CPU thread
  kGpu,    // GPU activity: kernel, memcpy, memset
};

struct Row {
  std::string name;
  RowKind kind = RowKind::kApi;
  uint64_t count = 0;  // # of Calls
  // CPU side (ranges and API calls; zero for GPU activities).
  uint64_t self_cpu_ns = 0;   // minus direct children on the same thread
  uint64_t cpu_total_ns = 0;  // nested events of the same key counted once
  // GPU side: an activity's own duration (self = total); for a range or an
  // API call, the activities it issued directly (self) or with descendants.
  uint64_t self_device_ns = 0;
  uint64_t device_total_ns = 0;
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
};

}  // namespace gprof::analysis
