#include "tools/analysis/read/range_names.h"

#include <array>

namespace gprof::analysis {

namespace {

// The separators torch/csrc/profiler (getNvtxStr) appends, in its order;
// "stashed seq" is what older autograd engines wrote for backward ops.
constexpr std::array<std::string_view, 5> kDecorations = {
    ", seq = ", ", stashed seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "};
constexpr std::string_view kSizes = ", sizes = ";

// Where the first decoration at or after `from` starts (the end if none).
size_t next_decoration(std::string_view message, size_t from) {
  size_t cut = message.size();
  for (std::string_view decoration : kDecorations)
    cut = std::min(cut, message.find(decoration, from));
  return cut;
}

}  // namespace

std::string_view torch_op_name(std::string_view message) {
  return message.substr(0, next_decoration(message, 0));
}

std::string_view torch_input_shapes(std::string_view message) {
  const size_t at = message.find(kSizes);
  if (at == std::string_view::npos) return {};
  const size_t start = at + kSizes.size();
  return message.substr(start, next_decoration(message, start) - start);
}

std::string range_row_name(const std::string* message, const std::string* domain) {
  std::string name = message == nullptr || message->empty() ? std::string(kUnnamedRange)
                                                            : std::string(torch_op_name(*message));
  if (domain != nullptr && !domain->empty()) name = *domain + ":" + name;
  return name;
}

}  // namespace gprof::analysis
