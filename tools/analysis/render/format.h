// Text formatting shared by the tables: times, percentages, memory sizes,
// dates and version numbers, as torch.autograd.profiler_util prints them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gprof::analysis {

enum class TimeUnit { kSeconds, kMilliseconds, kMicroseconds, kNanoseconds };

// "s", "ms", "us", "ns"; nullopt for anything else.
std::optional<TimeUnit> parse_time_unit(std::string_view text);

// torch's _format_time, from nanoseconds: ">= 1 s" -> "%.3fs", ">= 1 ms" ->
// "%.3fms", else "%.3fus" (negative times scale by their magnitude). A forced
// unit uses that unit ("%.0fns" for ns).
std::string format_time(double ns, std::optional<TimeUnit> unit = std::nullopt);

// torch's _format_time_share: "%.2f%%" of `total`, "NaN" when total is 0.
std::string format_time_share(double part, double total);

// torch's _format_memory: "1.50 GB", "3.00 MB", "2.00 KB", "12 B" (base 1024).
std::string format_memory(int64_t bytes);

// "2024-05-01T12:34:56.123456Z" from nanoseconds since the UNIX epoch.
std::string format_iso8601_utc(uint64_t wall_ns);

// 13000 -> "13.0", 12080 -> "12.8"; 0 -> "none".
std::string format_cuda_version(int32_t version);

// Number of characters (UTF-8 code points) in `text`, as Python's len().
size_t display_length(std::string_view text);

// The first `n` characters (code points) of `text`.
std::string_view display_prefix(std::string_view text, size_t n);

// `text` for one line of a text table or log: control characters (a newline
// or tab in an NVTX message, say) become spaces, so a row stays one line.
std::string single_line(std::string_view text);

}  // namespace gprof::analysis
