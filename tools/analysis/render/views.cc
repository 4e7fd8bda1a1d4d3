#include "tools/analysis/render/views.h"

#include <array>
#include <utility>

namespace gprof::analysis {
namespace {

constexpr std::array<std::pair<std::string_view, View>, 6> kViews = {{
    {"ops", View::kOps},
    {"ranges", View::kRanges},
    {"api", View::kApi},
    {"kernels", View::kKernels},
    {"memory", View::kMemory},
    {"launches", View::kLaunches},
}};

}  // namespace

std::optional<View> parse_view(std::string_view text) {
  for (const auto& [name, view] : kViews)
    if (name == text) return view;
  return std::nullopt;
}

std::vector<std::string_view> view_names() {
  std::vector<std::string_view> names;
  for (const auto& [name, view] : kViews) names.push_back(name);
  return names;
}

bool is_key_averages_view(View view) {
  return view != View::kMemory && view != View::kLaunches;
}

bool row_in_view(const Row& row, View view) {
  switch (view) {
    case View::kOps:
      return true;
    case View::kRanges:
      return row.kind == RowKind::kRange || row.kind == RowKind::kMemory;
    case View::kApi:
      return row.kind == RowKind::kApi;
    case View::kKernels:
      return row.kind == RowKind::kGpu && row.gpu_kind == GpuKind::kKernel;
    case View::kMemory:
    case View::kLaunches:
      break;
  }
  return false;
}

}  // namespace gprof::analysis
