// The check of an option that counts something (--limit, --samples-per-step):
// digits only, so that "-1" is an error rather than a size_t wrapped to 2^64 - 1.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>

namespace gprof::cli {

// Accepts whole numbers of `min` or more, written in digits.
CLI::Validator whole_number(uint64_t min);

}  // namespace gprof::cli
