#include "tools/analysis/memory_ledger.h"

#include <algorithm>
#include <unordered_map>

namespace gprof::analysis {

std::optional<MemoryEffect> memory_effect(ApiId api) {
  switch (api) {
    case ApiId::cudaMalloc:
    case ApiId::cudaMallocAsync:
    case ApiId::cudaMallocAsync_ptsz:
    case ApiId::cudaMallocManaged:
    case ApiId::cuMemAlloc:
      return MemoryEffect{MemorySpace::kDevice, true};
    case ApiId::cudaFree:
    case ApiId::cudaFreeAsync:
    case ApiId::cudaFreeAsync_ptsz:
    case ApiId::cuMemFree:
      return MemoryEffect{MemorySpace::kDevice, false};
    case ApiId::cudaMallocHost:
    case ApiId::cudaHostAlloc:
      return MemoryEffect{MemorySpace::kHost, true};
    case ApiId::cudaFreeHost:
      return MemoryEffect{MemorySpace::kHost, false};
    default:
      return std::nullopt;
  }
}

void AllocationLedger::add(const ApiRecord& record, uint32_t call) {
  if (record.result != 0) return;
  const std::optional<MemoryEffect> effect = memory_effect(record.api);
  if (!effect) return;
  calls_.push_back(Call{record.start_ns, record.address, record.bytes, call, *effect});
}

std::vector<MemoryDelta> AllocationLedger::resolve() {
  std::stable_sort(calls_.begin(), calls_.end(),
                   [](const Call& a, const Call& b) { return a.start_ns < b.start_ns; });
  // Live allocations by address, per space (a pinned and a device pointer
  // never share an address, but a cudaFree of a pinned one frees nothing).
  std::unordered_map<uint64_t, uint64_t> live[2];
  std::vector<MemoryDelta> out;
  for (const Call& c : calls_) {
    auto& space = live[static_cast<int>(c.effect.space)];
    int64_t bytes = 0;
    if (c.effect.allocates) {
      bytes = static_cast<int64_t>(c.bytes);
      if (c.address != 0) space[c.address] = c.bytes;
    } else if (c.address != 0) {
      auto it = space.find(c.address);
      if (it != space.end()) {
        bytes = -static_cast<int64_t>(it->second);
        space.erase(it);
      }
    }
    if (bytes != 0) out.push_back(MemoryDelta{c.call, c.effect.space, bytes});
  }
  calls_.clear();
  return out;
}

}  // namespace gprof::analysis
