#include "gpu_records.h"

#include <atomic>
#include <cstdint>

#include "activity_buffers.h"
#include "activity_kinds.h"
#include "config.h"
#include "records.h"

namespace gprof_fake_cupti {
namespace {

std::atomic<uint64_t> g_kernel_records{0};

void AddKernel(const GprofFakeGpuOp& op) {
  CUpti_ActivityKind kind = CUPTI_ACTIVITY_KIND_INVALID;
  if (KindEnabledAtIssue(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, op.correlation_id)) {
    kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  } else if (KindEnabledAtIssue(CUPTI_ACTIVITY_KIND_KERNEL, op.correlation_id)) {
    kind = CUPTI_ACTIVITY_KIND_KERNEL;
  } else {
    return;
  }
  CUpti_ActivityKernel10 record = KernelRecord(op, kind);
  // What CUPTI does when it ran out of device memory for timestamps (cupti_activity.h).
  const uint64_t every = GetConfig().zero_timestamps_every;
  if (every != 0 && (g_kernel_records.fetch_add(1, std::memory_order_relaxed) + 1) % every == 0) {
    record.start = 0;
    record.end = 0;
    record.completed = 0;
  }
  AddRecord(record);
}

void AddCopy(const GprofFakeGpuOp& op) {
  // A peer copy is reported only as MEMCPY2.
  if (op.copy_kind == GPROF_FAKE_COPY_PTOP) {
    if (KindEnabledAtIssue(CUPTI_ACTIVITY_KIND_MEMCPY2, op.correlation_id))
      AddRecord(PeerCopyRecord(op));
    return;
  }
  if (KindEnabledAtIssue(CUPTI_ACTIVITY_KIND_MEMCPY, op.correlation_id))
    AddRecord(MemcpyRecord(op));
}

}  // namespace

void OnGpuOp(const GprofFakeGpuOp* op, void* user_data) {
  static_cast<void>(user_data);
  switch (op->kind) {
    case GPROF_FAKE_OP_KERNEL:
      AddKernel(*op);
      break;
    case GPROF_FAKE_OP_MEMCPY:
      AddCopy(*op);
      break;
    case GPROF_FAKE_OP_MEMSET:
      if (KindEnabledAtIssue(CUPTI_ACTIVITY_KIND_MEMSET, op->correlation_id))
        AddRecord(MemsetRecord(*op));
      break;
    default:
      break;
  }
}

}  // namespace gprof_fake_cupti
