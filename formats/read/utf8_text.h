// Strings in a sidecar file are bytes from the host process: kernel names,
// NVTX messages, argv, paths. The tools print them in UTF-8 formats (JSON,
// XML, Markdown), so bytes that are not valid UTF-8 become U+FFFD once, where
// the reader hands them out; the file keeps the raw bytes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gprof {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence that starts at text[i] (1 for ASCII), or
// 0 when the bytes there are not one (overlong, surrogate, truncated...).
size_t utf8_sequence_length(std::string_view text, size_t i);

bool is_valid_utf8(std::string_view text);

// Replaces each byte that does not start a valid sequence with U+FFFD, as
// Python's decode(errors="replace") does byte by byte.
void make_valid_utf8(std::string& text);

}  // namespace gprof
