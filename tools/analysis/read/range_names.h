// Row names of NVTX ranges.
//
// PyTorch's emit_nvtx() decorates each op's range with per-call details
// ("aten::mm, seq = 12, op_id = 40, sizes = [[2, 3], [3, 4]]"), which would
// make every call its own row; torch.profiler keys the same op as "aten::mm".
// So those decorations are dropped, and the rows line up with torch's.
#pragma once

#include <string>
#include <string_view>

namespace gprof::analysis {

inline constexpr const char* kUnnamedRange = "<unnamed range>";

// "aten::mm, seq = 12, op_id = 40" -> "aten::mm"; any other name unchanged.
std::string_view torch_op_name(std::string_view message);

// The input shapes of an emit_nvtx op, as torch's "Input Shapes" column
// prints them: "aten::mm, sizes = [[8, 16], [16, 4]]" -> "[[8, 16], [16, 4]]";
// "" when the message has none.
std::string_view torch_input_shapes(std::string_view message);

// The row name of a range: its message (torch_op_name), "<unnamed range>"
// when it has none, prefixed "DOMAIN:" outside the default domain.
// `message` and `domain` are nullptr when absent.
std::string range_row_name(const std::string* message, const std::string* domain);

}  // namespace gprof::analysis
