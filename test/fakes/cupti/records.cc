#include "records.h"

#include <unistd.h>

#include <atomic>
#include <cstddef>

#include "thread_ids.h"
#include "timestamps.h"

namespace gprof_fake_cupti {
namespace {

// What an H100 kernel of the simple kind the test programs launch reports.
constexpr uint16_t kRegistersPerThread = 32;

std::atomic<int64_t> g_next_grid_id{1};

uint8_t CopyKindOf(uint32_t kind) {
  switch (kind) {
    case GPROF_FAKE_COPY_HTOD:
      return CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    case GPROF_FAKE_COPY_DTOH:
      return CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    case GPROF_FAKE_COPY_DTOD:
      return CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    case GPROF_FAKE_COPY_HTOH:
      return CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
    case GPROF_FAKE_COPY_PTOP:
      return CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    default:
      return CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN;
  }
}

uint8_t MemoryKindOf(uint32_t kind) {
  switch (kind) {
    case GPROF_FAKE_MEMORY_PAGEABLE:
      return CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    case GPROF_FAKE_MEMORY_PINNED:
      return CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    case GPROF_FAKE_MEMORY_DEVICE:
      return CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    case GPROF_FAKE_MEMORY_MANAGED:
      return CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
    default:
      return CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN;
  }
}

// A runtime library older than the field reports no runtime id (struct_size says).
uint32_t RuntimeIdOf(const GprofFakeGpuOp& op) {
  if (op.struct_size < offsetof(GprofFakeGpuOp, runtime_correlation_id) + sizeof(uint32_t)) {
    return 0;
  }
  return op.runtime_correlation_id;
}

}  // namespace

uint32_t ContextIdOf(uint32_t device) {
  return device + 1;
}

size_t RecordSize(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      return sizeof(CUpti_ActivityExternalCorrelation);
    default:
      return 0;
  }
}

CUpti_ActivityKernel10 KernelRecord(const GprofFakeGpuOp& op, CUpti_ActivityKind kind) {
  CUpti_ActivityKernel10 record{};
  record.kind = kind;
  record.registersPerThread = kRegistersPerThread;
  record.start = ToCuptiTime(op.start_ns);
  record.end = ToCuptiTime(op.end_ns);
  record.completed = record.end;
  record.deviceId = op.device;
  record.contextId = ContextIdOf(op.device);
  record.streamId = op.stream_id;
  record.gridX = static_cast<int32_t>(op.grid[0]);
  record.gridY = static_cast<int32_t>(op.grid[1]);
  record.gridZ = static_cast<int32_t>(op.grid[2]);
  record.blockX = static_cast<int32_t>(op.block[0]);
  record.blockY = static_cast<int32_t>(op.block[1]);
  record.blockZ = static_cast<int32_t>(op.block[2]);
  record.staticSharedMemory = 0;
  record.dynamicSharedMemory = static_cast<int32_t>(op.dynamic_shared_bytes);
  record.correlationId = op.correlation_id;
  record.gridId = g_next_grid_id.fetch_add(1, std::memory_order_relaxed);
  // The fake runtime keeps kernel names for the life of the process.
  record.name = op.kernel_name;
  record.queued = CUPTI_TIMESTAMP_UNKNOWN;
  record.submitted = CUPTI_TIMESTAMP_UNKNOWN;
  record.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
  record.graphNodeId = op.graph_node_id;
  record.graphId = op.graph_id;
  record.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
  return record;
}

CUpti_ActivityMemcpy6 MemcpyRecord(const GprofFakeGpuOp& op) {
  CUpti_ActivityMemcpy6 record{};
  record.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  record.copyKind = CopyKindOf(op.copy_kind);
  record.srcKind = MemoryKindOf(op.src_kind);
  record.dstKind = MemoryKindOf(op.dst_kind);
  record.bytes = op.bytes;
  record.start = ToCuptiTime(op.start_ns);
  record.end = ToCuptiTime(op.end_ns);
  record.deviceId = op.device;
  record.contextId = ContextIdOf(op.device);
  record.streamId = op.stream_id;
  // cupti_activity.h, CUpti_ActivityMemcpy6, says correlationId is "identical to the correlation
  // ID in the driver API activity record that launched the memory copy" and runtimeCorrelationId
  // the runtime API record's. Observed instead (NVIDIA H100 and H200, driver 580.159.04, CUPTI
  // 13.0.1, 2026-11-27; test/fakes/observed/): a runtime copy's record carries the runtime call's
  // id as correlationId (the id its callbacks had) and runtimeCorrelationId 0. A copy made
  // through the driver API carries that call's id (our assumption: not observed yet).
  const uint32_t runtime_id = RuntimeIdOf(op);
  record.correlationId = runtime_id != 0 ? runtime_id : op.correlation_id;
  record.runtimeCorrelationId = 0;
  record.graphNodeId = op.graph_node_id;
  record.graphId = op.graph_id;
  record.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
  record.copyCount = 1;
  return record;
}

CUpti_ActivityMemcpyPtoP4 PeerCopyRecord(const GprofFakeGpuOp& op) {
  CUpti_ActivityMemcpyPtoP4 record{};
  record.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  record.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  record.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  record.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  record.bytes = op.bytes;
  record.start = ToCuptiTime(op.start_ns);
  record.end = ToCuptiTime(op.end_ns);
  record.deviceId = op.device;
  record.contextId = ContextIdOf(op.device);
  record.streamId = op.stream_id;
  record.srcDeviceId = op.src_device;
  record.srcContextId = ContextIdOf(op.src_device);
  record.dstDeviceId = op.dst_device;
  record.dstContextId = ContextIdOf(op.dst_device);
  // CUpti_ActivityMemcpyPtoP4 has one id, "identical to the correlation ID in the driver and
  // runtime API activity record": the runtime call's when there is one.
  record.correlationId = RuntimeIdOf(op) != 0 ? RuntimeIdOf(op) : op.correlation_id;
  record.graphNodeId = op.graph_node_id;
  record.graphId = op.graph_id;
  record.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
  return record;
}

CUpti_ActivityMemset4 MemsetRecord(const GprofFakeGpuOp& op) {
  CUpti_ActivityMemset4 record{};
  record.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  record.value = static_cast<uint32_t>(op.memset_value);
  record.bytes = op.bytes;
  record.start = ToCuptiTime(op.start_ns);
  record.end = ToCuptiTime(op.end_ns);
  record.deviceId = op.device;
  record.contextId = ContextIdOf(op.device);
  record.streamId = op.stream_id;
  record.correlationId = op.correlation_id;
  record.memoryKind = MemoryKindOf(op.dst_kind);
  record.graphNodeId = op.graph_node_id;
  record.graphId = op.graph_id;
  record.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
  return record;
}

CUpti_ActivityAPI ApiRecord(const GprofFakeApiCall& call, CUpti_ActivityKind kind) {
  CUpti_ActivityAPI record{};
  record.kind = kind;
  record.cbid = call.cbid;
  record.start = ToCuptiTime(call.enter_ns);
  record.end = ToCuptiTime(call.exit_ns);
  record.processId = static_cast<uint32_t>(getpid());
  record.threadId = CurrentThreadId();
  record.correlationId = call.correlation_id;
  record.returnValue = static_cast<uint32_t>(call.result);
  return record;
}

CUpti_ActivitySynchronization2 SyncRecord(const GprofFakeApiCall& call,
                                          CUpti_ActivitySynchronizationType type) {
  CUpti_ActivitySynchronization2 record{};
  record.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  record.type = type;
  record.start = ToCuptiTime(call.enter_ns);
  record.end = ToCuptiTime(call.exit_ns);
  record.correlationId = call.correlation_id;
  record.contextId = ContextIdOf(call.device);
  record.streamId = call.stream_id != 0 ? call.stream_id : CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  // The fake does not number CUDA events.
  record.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  record.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  record.returnValue = static_cast<uint32_t>(call.result);
  return record;
}

CUpti_ActivityExternalCorrelation ExternalRecord(CUpti_ExternalCorrelationKind kind, uint64_t id,
                                                 uint32_t correlation_id) {
  CUpti_ActivityExternalCorrelation record{};
  record.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
  record.externalKind = kind;
  record.externalId = id;
  record.correlationId = correlation_id;
  return record;
}

}  // namespace gprof_fake_cupti
