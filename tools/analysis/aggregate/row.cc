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

}  // namespace gprof::analysis
