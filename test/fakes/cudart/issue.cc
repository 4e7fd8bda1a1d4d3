#include "issue.h"

#include <cstring>

#include "clock.h"
#include "gpu_op_log.h"

namespace gprof_fake {
namespace {

void Fill(unsigned char* row, const OpRequest& request) {
  if (request.element_bytes == 1) {
    std::memset(row, request.value, request.width);
    return;
  }
  const auto word = static_cast<uint32_t>(request.value);
  for (size_t offset = 0; offset + sizeof(word) <= request.width; offset += sizeof(word)) {
    std::memcpy(row + offset, &word, sizeof(word));
  }
}

void MoveBytes(const OpRequest& request) {
  auto* dst = static_cast<unsigned char*>(request.dst);
  const auto* src = static_cast<const unsigned char*>(request.src);
  for (size_t row = 0; row < request.height; ++row) {
    if (request.kind == GPROF_FAKE_OP_MEMSET) {
      Fill(dst + row * request.dst_pitch, request);
    } else {
      // memmove: a device-to-device copy may overlap; the real runtime leaves that undefined,
      // the fake just has to stay memory-safe.
      std::memmove(dst + row * request.dst_pitch, src + row * request.src_pitch, request.width);
    }
  }
}

int64_t DurationNs(const Config& config, const OpRequest& request) {
  if (request.kind == GPROF_FAKE_OP_KERNEL) return KernelNs(config, request.kernel->name);
  return TransferNs(config, request.bytes());
}

GprofFakeGpuOp Describe(const OpRequest& request, const StreamRef& stream, Interval interval,
                        uint32_t correlation_id, GraphOrigin origin) {
  GprofFakeGpuOp op{};
  op.struct_size = sizeof(op);
  op.kind = request.kind;
  op.start_ns = interval.start_ns;
  op.end_ns = interval.end_ns;
  op.correlation_id = correlation_id;
  op.device = static_cast<uint32_t>(stream.device);
  op.stream_id = stream.timeline_id;
  op.stream_handle = reinterpret_cast<uint64_t>(stream.handle);
  op.graph_id = origin.graph_id;
  op.graph_node_id = origin.node_id;
  if (request.kind == GPROF_FAKE_OP_KERNEL) {
    op.kernel_name = request.kernel->name.c_str();
    op.grid[0] = request.grid.x;
    op.grid[1] = request.grid.y;
    op.grid[2] = request.grid.z;
    op.block[0] = request.block.x;
    op.block[1] = request.block.y;
    op.block[2] = request.block.z;
    op.dynamic_shared_bytes = request.shared_bytes;
    return op;
  }
  op.bytes = request.bytes();
  op.dst_kind = request.dst_kind;
  if (request.kind == GPROF_FAKE_OP_MEMSET) {
    op.memset_value = request.value;
  } else {
    op.copy_kind = request.copy_kind;
    op.src_kind = request.src_kind;
    op.src_device = static_cast<uint32_t>(request.src_device);
    op.dst_device = static_cast<uint32_t>(request.dst_device);
  }
  return op;
}

}  // namespace

Interval Issue(Runtime& runtime, const StreamRef& stream, const OpRequest& request,
               uint32_t correlation_id, GraphOrigin origin, uint32_t runtime_correlation_id) {
  if (stream.object != nullptr && stream.object->capture != nullptr) {
    stream.object->capture->nodes.push_back(request);
    return Interval{};
  }
  if (request.kind != GPROF_FAKE_OP_KERNEL) MoveBytes(request);
  const Interval interval =
      runtime.timeline.Schedule(stream.timeline_id, NowNs(), DurationNs(runtime.config, request));
  if (GpuOpsObserved()) {
    GprofFakeGpuOp op = Describe(request, stream, interval, correlation_id, origin);
    op.runtime_correlation_id = runtime_correlation_id;
    RecordGpuOp(op);
  }
  return interval;
}

void HostWait(int64_t until_ns) {
  SleepUntil(until_ns);
  if (GpuOpsObserved()) DeliverCompletedGpuOps(NowNs());
}

}  // namespace gprof_fake
