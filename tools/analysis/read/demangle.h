// Kernel names are stored mangled (docs/architecture.md §3.2); the tables show them
// demangled.
#pragma once

#include <string>
#include <string_view>

namespace gprof::analysis {

// "_Z6squarePfi" -> "square(float*, int)". Names that are not mangled C++
// symbols (extern "C" kernels, PTX names) come back unchanged.
std::string demangle(std::string_view name);

}  // namespace gprof::analysis
