// Which bytes an allocation or free call moved (DESIGN.md §5, memory
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
