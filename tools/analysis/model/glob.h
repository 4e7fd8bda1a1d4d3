// Name patterns of --range and --step: a name matches exactly, or as a glob
// in which '*' stands for any run of characters ("ProfilerStep*", "*mm*").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gprof::analysis {

// Whether `text` matches `pattern`; every character other than '*' matches
// itself (case-sensitive, as NVTX names are).
bool glob_match(std::string_view pattern, std::string_view text);

// Whether `text` matches any of `patterns`.
bool glob_match_any(const std::vector<std::string>& patterns, std::string_view text);

}  // namespace gprof::analysis
