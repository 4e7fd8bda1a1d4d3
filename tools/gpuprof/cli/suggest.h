// "did you mean ...?" for a mistyped command, sort key or option: the
// candidates closest to what was typed, by edit distance (a swap of two
// neighbours counts as one edit, the most common typo), or that start with it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gprof::cli {

// The closest candidates (at most three, in the order given), none when
// nothing is close enough to be a likely typo.
std::vector<std::string> closest(std::string_view typed,
                                 const std::vector<std::string>& candidates);

// "; did you mean 'report'?", "; did you mean 'a' or 'b'?", or "".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace gprof::cli
