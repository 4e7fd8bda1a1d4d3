// Row names of GPU activities (docs/architecture.md §3.2, §7), spelled as PyTorch (kineto)
// and CUPTI users know them: "Memcpy HtoD (Pageable -> Device)",
// "Memset (Device)"; kernels by their demangled name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "formats/record.h"

namespace gprof::analysis {

inline constexpr const char* kUnknownKernel = "<unknown kernel>";

// CUpti_ActivityMemcpyKind: "HtoD", "DtoH", ..., "PtoP"; "Unknown" otherwise.
std::string_view copy_direction(uint8_t copy_kind);

// CUpti_ActivityMemoryKind: "Pageable", "Pinned", "Device", "Array",
// "Managed", "Device Static", "Managed Static"; "Unknown" otherwise.
std::string_view memory_kind_name(uint8_t memory_kind);

// CUpti_ActivitySynchronizationType: "Event Synchronize", "Stream Wait Event",
// "Stream Synchronize", "Context Synchronize"; "Synchronize" otherwise.
std::string_view sync_name(uint32_t sync_type);
// The same as kineto writes it in a trace: "Stream Sync", "Context Sync"...
std::string_view kineto_sync_name(uint32_t sync_type);

// The row name of a GPU record. `kernel` is the mangled name of a kernel
// record (nullptr when the file never defined its id: "<unknown kernel>").
std::string gpu_row_name(const GpuRecord& record, const std::string* kernel);

// "kernel", "memcpy", "memset", "sync".
std::string_view gpu_kind_name(GpuKind kind);

// What a GPU record's row name depends on, as one number: readers name a
// million launches of one kernel once by caching names under it.
// `kernel_known`: the file defined the kernel's name.
uint64_t gpu_row_name_key(const GpuRecord& record, bool kernel_known);

}  // namespace gprof::analysis
