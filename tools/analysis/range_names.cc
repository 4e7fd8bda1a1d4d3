#include "tools/analysis/range_names.h"

#include <array>

namespace gprof::analysis {

std::string_view torch_op_name(std::string_view message) {
  // The separators torch/csrc/profiler (getNvtxStr) appends, in its order;
  // "stashed seq" is what older autograd engines wrote for backward ops.
  constexpr std::array<std::string_view, 5> kDecorations = {
      ", seq = ", ", stashed seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "};
  size_t cut = message.size();
  for (std::string_view decoration : kDecorations) cut = std::min(cut, message.find(decoration));
  return message.substr(0, cut);
}

std::string range_row_name(const std::string* message, const std::string* domain) {
  std::string name = message == nullptr || message->empty() ? std::string(kUnnamedRange)
                                                            : std::string(torch_op_name(*message));
  if (domain != nullptr && !domain->empty()) name = *domain + ":" + name;
  return name;
}

}  // namespace gprof::analysis
