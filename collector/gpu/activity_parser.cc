#include "collector/gpu/activity_parser.h"

namespace gprof {
namespace {

uint32_t non_negative(int32_t v) {
  return v > 0 ? static_cast<uint32_t>(v) : 0;
}

// Common fields; false when the record carries no timestamps.
template <typename Record>
bool timed(const Record& r, const ClockMap& clock, GpuKind kind, ParsedActivity& out) {
  if (r.start == 0 && r.end == 0) {
    out.outcome = ActivityOutcome::kZeroTimestamp;
    return false;
  }
  GpuRecord& g = out.gpu;
  g.kind = kind;
  g.start_ns = clock.to_ns(r.start);
  g.end_ns = r.end >= r.start ? clock.to_ns(r.end) : g.start_ns;
  g.correlation = r.correlationId;
  g.stream = r.streamId;
  out.outcome = ActivityOutcome::kGpu;
  return true;
}

void kernel(const CUpti_ActivityKernel10& r, const ClockMap& clock, ParsedActivity& out) {
  if (!timed(r, clock, GpuKind::kKernel, out)) return;
  GpuRecord& g = out.gpu;
  g.device = r.deviceId;
  g.grid = {non_negative(r.gridX), non_negative(r.gridY), non_negative(r.gridZ)};
  g.block = {non_negative(r.blockX), non_negative(r.blockY), non_negative(r.blockZ)};
  g.shared_mem = non_negative(r.staticSharedMemory) + non_negative(r.dynamicSharedMemory);
  g.registers = r.registersPerThread;
  g.graph = r.graphId;
  g.graph_node = r.graphNodeId;
  out.kernel_name = r.name;
}

// Copies and peer copies share these fields under the same names.
template <typename Record>
void copy(const Record& r, const ClockMap& clock, ParsedActivity& out) {
  if (!timed(r, clock, GpuKind::kMemcpy, out)) return;
  GpuRecord& g = out.gpu;
  if constexpr (requires { r.srcDeviceId; }) {
    g.device = r.srcDeviceId;
    g.peer_device = r.dstDeviceId;
  } else {
    g.device = r.deviceId;
  }
  g.bytes = r.bytes;
  g.copy_kind = r.copyKind;
  g.src_kind = r.srcKind;
  g.dst_kind = r.dstKind;
  g.graph = r.graphId;
  g.graph_node = r.graphNodeId;
  // cupti_activity.h (CUpti_ActivityMemcpy6): correlationId is the id of the
  // driver call that did the copy, runtimeCorrelationId the runtime call's.
  // The call gprof records is the runtime one (a driver call nested in it is
  // skipped), so pair by the runtime id; a copy the program made through the
  // driver API has none (0), and its own call is the driver one.
  if constexpr (requires { r.runtimeCorrelationId; }) {
    if (r.runtimeCorrelationId != 0) g.correlation = r.runtimeCorrelationId;
  }
}

void memset(const CUpti_ActivityMemset4& r, const ClockMap& clock, ParsedActivity& out) {
  if (!timed(r, clock, GpuKind::kMemset, out)) return;
  GpuRecord& g = out.gpu;
  g.device = r.deviceId;
  g.bytes = r.bytes;
  g.dst_kind = static_cast<uint8_t>(r.memoryKind);
  g.detail = r.value;
  g.graph = r.graphId;
  g.graph_node = r.graphNodeId;
}

void synchronization(const CUpti_ActivitySynchronization2& r, const ClockMap& clock,
                     ParsedActivity& out) {
  if (!timed(r, clock, GpuKind::kSync, out)) return;
  out.gpu.detail = static_cast<uint32_t>(r.type);
  // CUPTI marks "no stream" (context and event syncs) with all ones.
  if (r.streamId == UINT32_MAX) out.gpu.stream = 0;
}

}  // namespace

ParsedActivity parse_activity(const CUpti_Activity* record, const ClockMap& clock) {
  ParsedActivity out;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record), clock, out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      copy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record), clock, out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      copy(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record), clock, out);
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      memset(*reinterpret_cast<const CUpti_ActivityMemset4*>(record), clock, out);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      synchronization(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(record), clock, out);
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto& r = *reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      if (r.externalKind == kGprofExternalKind) {
        out.outcome = ActivityOutcome::kExternal;
        out.correlation = r.correlationId;
        out.external_id = r.externalId;
      }
      break;
    }
    default:
      break;
  }
  return out;
}

}  // namespace gprof
