// The fixed-size record a hook hands to its thread's ring. Plain data only:
// it is written on the hot path of the host program (docs/architecture.md §2.1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "formats/api_ids.h"

namespace gprof {

enum class RecordKind : uint8_t { kApi = 1, kRange = 2 };

// What the GPU ran, from CUPTI activity records (docs/architecture.md §3.2).
enum class GpuKind : uint8_t { kKernel = 1, kMemcpy = 2, kMemset = 3, kSync = 4 };

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
  // The libcudart major the hook forwarded the call to (12, 13: a process may
  // hold both); 0 when unknown (a CUPTI callback recorded the call).
  uint8_t runtime;
  uint8_t reserved[3];
};

static_assert(sizeof(ApiRecord) == 96, "ring slots are 96 bytes; change deliberately");
static_assert(std::is_trivially_copyable_v<ApiRecord>);

// What an NVTX call did (docs/architecture.md §3.6). Ranges are stored as their
// events: pairing pushes with pops and starts with ends is the tools' work, so
// that unbalanced pops, ranges left open and ranges ended on another thread
// lose nothing in the process.
enum class RangeOp : uint8_t {
  kPush = 1,          // nvtxRangePush*, nvtxDomainRangePushEx
  kPop = 2,           // nvtxRangePop, nvtxDomainRangePop (name = 0)
  kStart = 3,         // nvtxRangeStart*: range_id identifies it; may end on another thread
  kEnd = 4,           // nvtxRangeEnd (name = 0)
  kMark = 5,          // nvtxMark*
  kNameCategory = 6,  // category → name
  kNameThread = 7,    // range_id = the OS thread id named; name = its name
};

// An NVTX event, in a ring slot of the same size as ApiRecord; `kind` is at
// the same offset so the writer can tell the two apart.
struct RangeEvent {
  uint64_t time_ns;   // on the recording clock
  uint64_t range_id;  // kStart/kEnd: the nvtxRangeId_t; kNameThread: the thread
  uint64_t payload;   // nvtxEventAttributes_t payload, as 64 bits (0 when none)
  uint32_t name;      // interned message id (0: none)
  uint32_t domain;    // interned domain name id (0: the default domain)
  uint32_t category;  // nvtxEventAttributes_t category (0: none)
  uint32_t color;     // ARGB when given (0: none)
  // PyTorch emit_nvtx messages ("aten::add, seq = 12, op_id = 34, sizes = ...")
  // are interned without these two parts, which are kept as numbers: seq links
  // a backward op to its forward op.
  uint64_t seq;    // torch sequence_nr + 1; 0: the message had none
  uint64_t op_id;  // 0: the message had none
  uint8_t pad[24];
  uint32_t tid;
  uint32_t reserved;
  uint16_t reserved2;
  RecordKind kind;
  RangeOp op;
  uint32_t reserved3;
};

static_assert(sizeof(RangeEvent) == sizeof(ApiRecord), "ring slots hold either record");
static_assert(offsetof(RangeEvent, kind) == offsetof(ApiRecord, kind));
static_assert(offsetof(RangeEvent, tid) == offsetof(ApiRecord, tid));
static_assert(std::is_trivially_copyable_v<RangeEvent>);

// One GPU activity, parsed from a CUPTI buffer on the writer thread (never on a
// host thread's hot path). Times are on the recording clock.
struct GpuRecord {
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t correlation;  // CUPTI correlation id of the API call that issued it
  uint64_t bytes;        // copies and sets
  uint64_t graph_node;   // CUPTI graph node id, 0 outside graphs
  uint32_t kernel;       // interned (mangled) kernel name id
  uint32_t device;
  uint32_t stream;  // CUPTI stream id (not the cudaStream_t handle)
  uint32_t graph;   // CUPTI graph id, 0 outside graphs
  Dim3 grid;
  Dim3 block;
  uint32_t shared_mem;   // static + dynamic, bytes
  uint32_t registers;    // per thread
  uint32_t peer_device;  // destination device of a peer copy
  uint32_t detail;       // sync: CUpti_ActivitySynchronizationType; memset: value
  GpuKind kind;
  uint8_t copy_kind;  // CUpti_ActivityMemcpyKind
  uint8_t src_kind;   // CUpti_ActivityMemoryKind
  uint8_t dst_kind;   // CUpti_ActivityMemoryKind (sets: the memory set)
};

static_assert(std::is_trivially_copyable_v<GpuRecord>);

// Which optional columns of pb::GpuActivities a kind carries.
enum GpuField : uint32_t {
  kGpuFieldLaunch = 1u << 0,  // kernel, grid, block, shared memory, registers
  kGpuFieldBytes = 1u << 1,
  kGpuFieldCopy = 1u << 2,    // copy kind, source kind, peer device
  kGpuFieldTarget = 1u << 3,  // destination memory kind
  kGpuFieldDetail = 1u << 4,
};

inline uint32_t gpu_fields(GpuKind kind) {
  switch (kind) {
    case GpuKind::kKernel:
      return kGpuFieldLaunch;
    case GpuKind::kMemcpy:
      return kGpuFieldBytes | kGpuFieldCopy | kGpuFieldTarget;
    case GpuKind::kMemset:
      return kGpuFieldBytes | kGpuFieldTarget | kGpuFieldDetail;
    case GpuKind::kSync:
      return kGpuFieldDetail;
  }
  return 0;
}

inline bool known_gpu_kind(uint32_t kind) {
  return kind >= static_cast<uint32_t>(GpuKind::kKernel) &&
         kind <= static_cast<uint32_t>(GpuKind::kSync);
}

}  // namespace gprof
