#include "tools/analysis/read/gpu_names.h"

#include <fmt/format.h>

#include <array>

#include "tools/analysis/read/demangle.h"

namespace gprof::analysis {
namespace {

// Indexed by the CUPTI enum value (CUDA 13.0 include/cupti_activity.h).
constexpr std::array<std::string_view, 11> kDirections = {
    "Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
constexpr std::array<std::string_view, 8> kMemoryKinds = {
    "Unknown", "Pageable", "Pinned",        "Device",
    "Array",   "Managed",  "Device Static", "Managed Static"};
constexpr std::array<std::string_view, 5> kSyncs = {"Synchronize", "Event Synchronize",
                                                    "Stream Wait Event", "Stream Synchronize",
                                                    "Context Synchronize"};
// What kineto names them (libkineto/src/cupti_strings.cpp, syncTypeString),
// which HTA looks for in a trace.
constexpr std::array<std::string_view, 5> kKinetoSyncs = {
    "Unknown Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};

template <size_t N>
std::string_view lookup(const std::array<std::string_view, N>& names, uint32_t value) {
  return value < N ? names[value] : names[0];
}

}  // namespace

std::string_view copy_direction(uint8_t copy_kind) {
  return lookup(kDirections, copy_kind);
}

std::string_view memory_kind_name(uint8_t memory_kind) {
  return lookup(kMemoryKinds, memory_kind);
}

std::string_view sync_name(uint32_t sync_type) {
  return lookup(kSyncs, sync_type);
}

std::string_view kineto_sync_name(uint32_t sync_type) {
  return lookup(kKinetoSyncs, sync_type);
}

std::string gpu_row_name(const GpuRecord& record, const std::string* kernel) {
  switch (record.kind) {
    case GpuKind::kKernel:
      return kernel ? demangle(*kernel) : std::string(kUnknownKernel);
    case GpuKind::kMemcpy:
      return fmt::format("Memcpy {} ({} -> {})", copy_direction(record.copy_kind),
                         memory_kind_name(record.src_kind), memory_kind_name(record.dst_kind));
    case GpuKind::kMemset:
      return fmt::format("Memset ({})", memory_kind_name(record.dst_kind));
    case GpuKind::kSync:
      return std::string(sync_name(record.detail));
  }
  return "<unknown GPU activity>";
}

std::string_view gpu_kind_name(GpuKind kind) {
  switch (kind) {
    case GpuKind::kKernel:
      return "kernel";
    case GpuKind::kMemcpy:
      return "memcpy";
    case GpuKind::kMemset:
      return "memset";
    case GpuKind::kSync:
      return "sync";
  }
  return "unknown";
}

uint64_t gpu_row_name_key(const GpuRecord& r, bool kernel_known) {
  uint64_t key = uint64_t{static_cast<uint8_t>(r.kind)} << 56;
  switch (r.kind) {
    case GpuKind::kKernel:
      return key | (kernel_known ? r.kernel : 0);
    case GpuKind::kMemcpy:
      return key | uint64_t{r.copy_kind} << 16 | uint64_t{r.src_kind} << 8 | r.dst_kind;
    case GpuKind::kMemset:
      return key | r.dst_kind;
    case GpuKind::kSync:
      return key | r.detail;
  }
  return key;
}

}  // namespace gprof::analysis
