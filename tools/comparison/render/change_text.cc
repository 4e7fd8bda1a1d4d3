#include "tools/comparison/render/change_text.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "tools/analysis/render/format.h"

namespace gprof::comparison {

std::string format_value(double value, Unit unit) {
  switch (unit) {
    case Unit::kTime:
      return analysis::format_time(value);
    case Unit::kBytes:
      return analysis::format_memory(static_cast<int64_t>(std::llround(value)));
    case Unit::kCount:
      break;
  }
  if (value == std::floor(value)) return fmt::format("{:.0f}", value);
  return fmt::format("{:.1f}", value);
}

std::string format_change(double base, double now, Unit unit) {
  const double delta = now - base;
  if (delta == 0) return "0";
  return (delta > 0 ? "+" : "") + format_value(delta, unit);
}

std::string format_calls(double count) {
  return format_value(count, Unit::kCount) + (count == 1 ? " call" : " calls");
}

std::optional<double> relative_change(double base, double now) {
  if (base == 0) return now == 0 ? std::optional<double>(0) : std::nullopt;
  return (now - base) / std::fabs(base) * 100.0;
}

std::string format_relative(double base, double now) {
  if (base == 0 && now != 0) return "new";
  if (now == 0 && base != 0) return "gone";
  // Finite from here: base is 0 only when now is too.
  const double relative = relative_change(base, now).value_or(0);
  if (relative == 0) return "0.0%";
  return fmt::format("{:+.1f}%", relative);
}

std::string row_label(const RowKey& key) {
  std::string out = key.kind + " " + key.name;
  if (!key.group.empty()) out += " [" + key.group + "]";
  return analysis::single_line(out);
}

}  // namespace gprof::comparison
