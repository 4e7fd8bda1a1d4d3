// The line format of `gpuprof info`: "Label:           value", values
// aligned in one column, sub-fields of a section indented under it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gprof::cli {

// "Label:" padded to 17 characters, then the value.
void field(std::string_view label, std::string_view value);

// "  Label:" padded to 17 characters (a line of a section), then the value.
void subfield(std::string_view label, std::string_view value);

// "1 kernel", "2 kernels".
std::string plural(uint64_t n, std::string_view one, std::string_view many);

}  // namespace gprof::cli
