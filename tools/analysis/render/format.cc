#include "tools/analysis/render/format.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <ctime>

namespace gprof::analysis {

std::optional<TimeUnit> parse_time_unit(std::string_view text) {
  if (text == "s") return TimeUnit::kSeconds;
  if (text == "ms") return TimeUnit::kMilliseconds;
  if (text == "us") return TimeUnit::kMicroseconds;
  if (text == "ns") return TimeUnit::kNanoseconds;
  return std::nullopt;
}

std::string format_time(double ns, std::optional<TimeUnit> unit) {
  // torch works in microseconds; convert first so that the rounding matches.
  constexpr double kUsInSecond = 1000.0 * 1000.0;
  constexpr double kUsInMs = 1000.0;
  const double us = ns / 1000.0;
  if (!unit) {
    // By magnitude, so that a negative time (a queue time) scales too.
    const double magnitude = std::fabs(us);
    if (magnitude >= kUsInSecond)
      unit = TimeUnit::kSeconds;
    else if (magnitude >= kUsInMs)
      unit = TimeUnit::kMilliseconds;
    else
      unit = TimeUnit::kMicroseconds;
  }
  switch (*unit) {
    case TimeUnit::kSeconds:
      return fmt::format("{:.3f}s", us / kUsInSecond);
    case TimeUnit::kMilliseconds:
      return fmt::format("{:.3f}ms", us / kUsInMs);
    case TimeUnit::kMicroseconds:
      return fmt::format("{:.3f}us", us);
    case TimeUnit::kNanoseconds:
      return fmt::format("{:.0f}ns", ns);
  }
  return {};
}

std::string format_time_share(double part, double total) {
  if (total == 0) return "NaN";
  return fmt::format("{:.2f}%", part * 100.0 / total);
}

std::string format_memory(int64_t bytes) {
  constexpr double kKb = 1024;
  constexpr double kMb = 1024 * kKb;
  constexpr double kGb = 1024 * kMb;
  const double b = static_cast<double>(bytes);
  const double magnitude = std::fabs(b);
  if (magnitude >= kGb) return fmt::format("{:.2f} GB", b / kGb);
  if (magnitude >= kMb) return fmt::format("{:.2f} MB", b / kMb);
  if (magnitude >= kKb) return fmt::format("{:.2f} KB", b / kKb);
  return fmt::format("{} B", bytes);
}

std::string format_iso8601_utc(uint64_t wall_ns) {
  const auto seconds = static_cast<std::time_t>(wall_ns / 1000000000u);
  const auto micros = static_cast<unsigned>((wall_ns % 1000000000u) / 1000u);
  std::tm tm{};
  if (gmtime_r(&seconds, &tm) == nullptr) return "?";
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
}

std::string format_cuda_version(int32_t version) {
  if (version <= 0) return "none";
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

size_t display_length(std::string_view text) {
  size_t n = 0;
  for (char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string_view display_prefix(std::string_view text, size_t n) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (seen == n) return text.substr(0, i);
    ++seen;
  }
  return text;
}

std::string single_line(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) c = ' ';
  }
  return out;
}

}  // namespace gprof::analysis
