// The fixed-size record a hook hands to its thread's ring. Plain data only:
// it is written on the hot path of the host program (DESIGN.md §2.1).
#pragma once

#include <cstdint>
#include <type_traits>

#include "formats/api_ids.h"

namespace gprof {

enum class RecordKind : uint8_t { kApi = 1 };

struct Dim3 {
  uint32_t x, y, z;
};

struct ApiRecord {
  uint64_t start_ns;  // on the recording clock (CLOCK_MONOTONIC)
  uint64_t end_ns;
  uint64_t stream;       // stream handle, or the stream a sync waits for
  uint64_t bytes;        // copy/set/allocation size
  uint64_t address;      // pointer allocated/freed/set; event or graph handle
  uint64_t correlation;  // CUPTI correlation id, 0 when unknown
  uint32_t kernel;       // interned kernel name id, 0 when unknown
  Dim3 grid;
  Dim3 block;
  uint32_t shared_mem;
  uint32_t tid;    // OS thread id
  int32_t result;  // cudaError_t returned to the caller
  ApiId api;
  RecordKind kind;
  uint8_t copy_kind;  // cudaMemcpyKind
  uint32_t reserved;
};

static_assert(sizeof(ApiRecord) == 96, "ring slots are 96 bytes; change deliberately");
static_assert(std::is_trivially_copyable_v<ApiRecord>);

}  // namespace gprof
