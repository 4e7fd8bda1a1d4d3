// Which bytes allocation and free calls moved (memory_ledger.h).
#include "tools/analysis/aggregate/memory_ledger.h"

#include <catch2/catch.hpp>

#include <vector>

#include "test/unit/formats/sidecar_builder.h"

namespace gprof::analysis {
namespace {

ApiRecord call(ApiId api, uint64_t start, uint64_t address, uint64_t bytes = 0,
               int32_t result = 0) {
  ApiRecord r = test::make_call(api, start, 10);
  r.address = address;
  r.bytes = bytes;
  r.result = result;
  return r;
}

TEST_CASE("memory ledger: which APIs move which memory", "[memory]") {
  for (ApiId api : {ApiId::cudaMalloc, ApiId::cudaMallocAsync, ApiId::cudaMallocAsync_ptsz,
                    ApiId::cudaMallocManaged, ApiId::cuMemAlloc}) {
    const auto effect = memory_effect(api);
    REQUIRE(effect);
    CHECK(effect->space == MemorySpace::kDevice);
    CHECK(effect->allocates);
  }
  for (ApiId api : {ApiId::cudaFree, ApiId::cudaFreeAsync, ApiId::cuMemFree}) {
    REQUIRE(memory_effect(api));
    CHECK_FALSE(memory_effect(api)->allocates);
  }
  CHECK(memory_effect(ApiId::cudaMallocHost)->space == MemorySpace::kHost);
  CHECK(memory_effect(ApiId::cudaHostAlloc)->space == MemorySpace::kHost);
  CHECK(memory_effect(ApiId::cudaFreeHost)->space == MemorySpace::kHost);
  CHECK_FALSE(memory_effect(ApiId::cudaMemcpy));
  CHECK_FALSE(memory_effect(ApiId::cudaLaunchKernel));
}

TEST_CASE("memory ledger: frees match allocations by address, in time order", "[memory]") {
  AllocationLedger ledger;
  CHECK(ledger.empty());
  // Added out of time order, as threads' batches arrive.
  ledger.add(call(ApiId::cudaFree, 300, 0xA000), 3);  // frees the first 0xA000
  ledger.add(call(ApiId::cudaMalloc, 100, 0xA000, 4096), 0);
  ledger.add(call(ApiId::cudaMalloc, 400, 0xA000, 512), 4);  // the address reused
  ledger.add(call(ApiId::cudaFreeAsync, 500, 0xA000), 5);
  ledger.add(call(ApiId::cudaMallocHost, 150, 0xB000, 1024), 1);
  ledger.add(call(ApiId::cudaFree, 160, 0xB000), 2);  // a pinned pointer: nothing
  ledger.add(call(ApiId::cudaFreeHost, 600, 0xB000), 6);
  ledger.add(call(ApiId::cudaFree, 700, 0xC000), 7);                // never allocated here
  ledger.add(call(ApiId::cudaFree, 710, 0), 8);                     // nullptr
  ledger.add(call(ApiId::cudaMalloc, 720, 0xD000, 1 << 20, 2), 9);  // failed
  ledger.add(call(ApiId::cudaMemcpy, 730, 0xD000, 64), 10);         // not memory management
  CHECK_FALSE(ledger.empty());
  const std::vector<MemoryDelta> deltas = ledger.resolve();
  REQUIRE(deltas.size() == 6);
  CHECK(deltas[0].call == 0);
  CHECK(deltas[0].bytes == 4096);
  CHECK(deltas[0].space == MemorySpace::kDevice);
  CHECK(deltas[1].call == 1);
  CHECK(deltas[1].bytes == 1024);
  CHECK(deltas[1].space == MemorySpace::kHost);
  CHECK(deltas[2].call == 3);
  CHECK(deltas[2].bytes == -4096);
  CHECK(deltas[3].call == 4);
  CHECK(deltas[3].bytes == 512);
  CHECK(deltas[4].call == 5);
  CHECK(deltas[4].bytes == -512);
  CHECK(deltas[5].call == 6);
  CHECK(deltas[5].bytes == -1024);
  CHECK(deltas[5].space == MemorySpace::kHost);
  CHECK(ledger.empty());
}

}  // namespace
}  // namespace gprof::analysis
