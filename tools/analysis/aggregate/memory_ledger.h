// Which bytes an allocation or free call moved (docs/architecture.md §7, memory
// columns), as torch's CUDA Mem / CPU Mem count them:
//   device: cudaMalloc, cudaMallocAsync, cudaMallocManaged, cuMemAlloc_v2 add
//           their size; cudaFree, cudaFreeAsync, cuMemFree_v2 remove the size
//           of the allocation at that address;
//   host (pinned): cudaMallocHost, cudaHostAlloc add; cudaFreeHost removes.
// Addresses are per process, so a ledger covers one file. A failed call
// moved nothing; a free of an address the file never saw allocated (made
// before recording started) is 0 bytes, as is freeing nullptr.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "formats/record.h"

namespace gprof::analysis {

enum class MemorySpace : uint8_t { kDevice, kHost };

struct MemoryEffect {
  MemorySpace space;
  bool allocates;  // false: frees
};

// nullopt for APIs that neither allocate nor free.
std::optional<MemoryEffect> memory_effect(ApiId api);

struct MemoryDelta {
  uint32_t call;  // ApiCall::index
  MemorySpace space;
  int64_t bytes;  // > 0 allocated, < 0 freed; never 0
};

// The live allocations by address, per space, for calls taken in time order:
// what each call moved. AllocationLedger::resolve uses it; the trace feeds it
// from an external sort, so that memory follows the live allocations only.
class LiveAllocations {
 public:
  // Bytes moved: > 0 allocated, < 0 freed, 0 nothing.
  int64_t apply(MemoryEffect effect, uint64_t address, uint64_t bytes);

 private:
  // A pinned and a device pointer never share an address, but a cudaFree
  // of a pinned one frees nothing.
  std::unordered_map<uint64_t, uint64_t> live_[2];
};

class AllocationLedger {
 public:
  // Keeps the call when its API allocates or frees and it succeeded.
  void add(const ApiRecord& record, uint32_t call);

  bool empty() const { return calls_.empty(); }

  // Matches frees with allocations by address in time order (a thread may
  // free what another allocated); the deltas in time order. Empty afterwards.
  std::vector<MemoryDelta> resolve();

 private:
  struct Call {
    uint64_t start_ns;
    uint64_t address;
    uint64_t bytes;
    uint32_t call;
    MemoryEffect effect;
  };
  std::vector<Call> calls_;
};

}  // namespace gprof::analysis
