#include "tools/gpuprof/cli/whole_number.h"

#include <charconv>
#include <string>

namespace gprof::cli {

CLI::Validator whole_number(uint64_t min) {
  return CLI::Validator(
      [min](std::string& value) -> std::string {
        uint64_t n = 0;
        const char* end = value.data() + value.size();
        const auto [ptr, ec] = std::from_chars(value.data(), end, n);
        const bool digits =
            !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
        if (digits && ec == std::errc() && ptr == end && n >= min) return {};
        return "'" + value + "' is not a whole number of " + std::to_string(min) + " or more";
      },
      "");
}

}  // namespace gprof::cli
