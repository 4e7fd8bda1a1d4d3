// CUPTI 13.0 activity records built from what the fake runtime reports. Times are converted to
// CUPTI's clock (timestamps.h); a context id is its device's ordinal + 1, as CUPTI numbers
// contexts from 1 in creation order and the fake creates one per device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../cudart/fake_gpu_observer.h"
#include "cupti_abi.h"

namespace gprof_fake_cupti {

uint32_t ContextIdOf(uint32_t device);

// The size of a record of `kind` as the fake writes it into buffers, 0 for a kind it never
// writes. cuptiActivityGetNextRecord steps through a buffer with it.
size_t RecordSize(CUpti_ActivityKind kind);

// `kind` is CUPTI_ACTIVITY_KIND_KERNEL or CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL.
CUpti_ActivityKernel10 KernelRecord(const GprofFakeGpuOp& op, CUpti_ActivityKind kind);
CUpti_ActivityMemcpy6 MemcpyRecord(const GprofFakeGpuOp& op);
CUpti_ActivityMemcpyPtoP4 PeerCopyRecord(const GprofFakeGpuOp& op);
CUpti_ActivityMemset4 MemsetRecord(const GprofFakeGpuOp& op);

// `kind` is CUPTI_ACTIVITY_KIND_RUNTIME or CUPTI_ACTIVITY_KIND_DRIVER; `call` is at EXIT.
CUpti_ActivityAPI ApiRecord(const GprofFakeApiCall& call, CUpti_ActivityKind kind);
CUpti_ActivitySynchronization2 SyncRecord(const GprofFakeApiCall& call,
                                          CUpti_ActivitySynchronizationType type);
CUpti_ActivityExternalCorrelation ExternalRecord(CUpti_ExternalCorrelationKind kind, uint64_t id,
                                                 uint32_t correlation_id);

}  // namespace gprof_fake_cupti
