#include "tools/analysis/aggregate/row.h"

namespace gprof::analysis {

std::string_view row_kind_name(const Row& row) {
  switch (row.kind) {
    case RowKind::kRange:
      return "range";
    case RowKind::kApi:
      return "api";
    case RowKind::kMemory:
      return "memory";
    case RowKind::kGpu:
      break;
  }
  switch (row.gpu_kind) {
    case GpuKind::kMemcpy:
      return "memcpy";
    case GpuKind::kMemset:
      return "memset";
    default:
      return "kernel";
  }
}

void add_row_values(RowValues& to, const RowValues& from) {
  to.count += from.count;
  to.self_cpu_ns += from.self_cpu_ns;
  to.cpu_total_ns += from.cpu_total_ns;
  to.self_device_ns += from.self_device_ns;
  to.device_total_ns += from.device_total_ns;
  to.issued_device_ns += from.issued_device_ns;
  to.cpu_mem += from.cpu_mem;
  to.self_cpu_mem += from.self_cpu_mem;
  to.device_mem += from.device_mem;
  to.self_device_mem += from.self_device_mem;
}

void add_memory_event(RowValues& row, bool device, int64_t bytes) {
  ++row.count;
  if (device) {
    row.device_mem += bytes;
    row.self_device_mem += bytes;
  } else {
    row.cpu_mem += bytes;
    row.self_cpu_mem += bytes;
  }
}

}  // namespace gprof::analysis
