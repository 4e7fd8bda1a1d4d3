#include "tools/gpuprof/info/info_text.h"

#include <fmt/format.h>

namespace gprof::cli {

void field(std::string_view label, std::string_view value) {
  fmt::print("{:<17} {}\n", std::string(label) + ":", value);
}

void subfield(std::string_view label, std::string_view value) {
  fmt::print("  {:<15} {}\n", std::string(label) + ":", value);
}

std::string plural(uint64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace gprof::cli
