#include "tools/export/enum_tables.h"

#include <string_view>

namespace gprof::exporter {
namespace {

struct EnumRow {
  int64_t id;
  std::string_view name;
  std::string_view label;
};

// Only the values gprof's rows can hold. Ids and names as nsys exports
// them; CUpti_ActivityMemcpyKind and CUpti_ActivitySynchronizationType keep
// CUPTI's numbers there (cupti_activity.h, CUDA 13.0).
constexpr EnumRow kEventTypes[] = {
    {kNvtxCategory, "NvtxCategory", "NVTX Category"},
    {kNvtxMark, "NvtxMark", "NVTX Mark"},
    {kNvtxThread, "NvtxThread", "NVTX Thread"},
    {kNvtxPushPopRange, "NvtxPushPopRange", "NVTX PushPop Range"},
    {kNvtxStartEndRange, "NvtxStartEndRange", "NVTX StartEnd Range"},
    {kNvtxDomainCreate, "NvtxDomainCreate", "NVTX Domain Create"},
};
constexpr EnumRow kEventClasses[] = {
    {kCudaRuntime, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime"},
    {kCudaDriver, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver"},
};
constexpr EnumRow kCopyKinds[] = {
    {0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"},
    {1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
    {2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"},
    {3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
    {4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"},
    {5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
    {6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"},
    {7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
    {8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
    {9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
    {10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"},
};
constexpr EnumRow kMemoryKinds[] = {
    {0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
    {1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
    {2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
    {3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
    {4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
    {5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
    {6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"},
    {7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"},
};
constexpr EnumRow kSyncTypes[] = {
    {0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown"},
    {1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync"},
    {2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait sync"},
    {3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync"},
    {4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync"},
};

template <size_t N>
void write(Database& db, std::string_view table, const EnumRow (&rows)[N]) {
  Statement insert(db.handle(),
                   "INSERT INTO " + std::string(table) + " (id, name, label) VALUES (?, ?, ?)");
  for (const EnumRow& row : rows) {
    insert.bind(1, row.id);
    insert.bind(2, row.name);
    insert.bind(3, row.label);
    insert.run();
  }
}

}  // namespace

int64_t nsys_memory_kind(uint8_t cupti_kind) {
  constexpr int64_t kUnknown = 7;
  return cupti_kind >= 1 && cupti_kind <= 7 ? cupti_kind - 1 : kUnknown;
}

void write_enum_tables(Database& db) {
  write(db, "ENUM_NSYS_EVENT_TYPE", kEventTypes);
  write(db, "ENUM_NSYS_EVENT_CLASS", kEventClasses);
  write(db, "ENUM_CUDA_MEMCPY_OPER", kCopyKinds);
  write(db, "ENUM_CUDA_MEM_KIND", kMemoryKinds);
  write(db, "ENUM_CUPTI_SYNC_TYPE", kSyncTypes);
}

}  // namespace gprof::exporter
