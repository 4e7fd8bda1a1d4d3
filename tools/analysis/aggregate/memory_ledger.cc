#include "tools/analysis/aggregate/memory_ledger.h"

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

int64_t LiveAllocations::apply(MemoryEffect effect, uint64_t address, uint64_t bytes) {
  auto& space = live_[static_cast<int>(effect.space)];
  if (effect.allocates) {
    if (address != 0) space[address] = bytes;
    return static_cast<int64_t>(bytes);
  }
  if (address == 0) return 0;
  auto it = space.find(address);
  if (it == space.end()) return 0;
  const int64_t freed = -static_cast<int64_t>(it->second);
  space.erase(it);
  return freed;
}

std::vector<MemoryDelta> AllocationLedger::resolve() {
  std::stable_sort(calls_.begin(), calls_.end(),
                   [](const Call& a, const Call& b) { return a.start_ns < b.start_ns; });
  LiveAllocations live;
  std::vector<MemoryDelta> out;
  for (const Call& c : calls_) {
    const int64_t bytes = live.apply(c.effect, c.address, c.bytes);
    if (bytes != 0) out.push_back(MemoryDelta{c.call, c.effect.space, bytes});
  }
  calls_.clear();
  return out;
}

}  // namespace gprof::analysis
