#include "tools/analysis/read/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace gprof::analysis {

std::string demangle(std::string_view name) {
  // Only symbols: __cxa_demangle also accepts bare types ("i" -> "int"),
  // which would rename an extern "C" kernel called `i`.
  if (!name.starts_with("_Z")) return std::string(name);
  const std::string mangled(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !out) return mangled;
  return std::string(out.get());
}

}  // namespace gprof::analysis
