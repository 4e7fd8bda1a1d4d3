// The ENUM_ tables the exported rows refer to, with Nsight Systems' ids and
// symbol names, and the conversions from the CUPTI values gprof's file holds
// where nsys numbers differently (memory kinds).
#pragma once

#include <cstdint>

#include "tools/export/sqlite_db.h"

namespace gprof::exporter {

// ENUM_NSYS_EVENT_TYPE ids of NVTX_EVENTS.eventType.
enum NvtxEventType : int64_t {
  kNvtxCategory = 33,
  kNvtxMark = 34,
  kNvtxThread = 39,
  kNvtxPushPopRange = 59,
  kNvtxStartEndRange = 60,
  kNvtxDomainCreate = 75,
};

// ENUM_NSYS_EVENT_CLASS ids of CUPTI_ACTIVITY_KIND_RUNTIME.eventClass.
enum EventClass : int64_t { kCudaRuntime = 0, kCudaDriver = 1 };

// CUpti_ActivityMemoryKind (0 unknown, 1 pageable ... 7 managed static) to
// ENUM_CUDA_MEM_KIND (0 pageable ... 6 managed static, 7 unknown).
int64_t nsys_memory_kind(uint8_t cupti_kind);

void write_enum_tables(Database& db);

}  // namespace gprof::exporter
