// The thresholds of the rules: each rule declares its own (key, default,
// unit, meaning) in its RuleSpec; `--threshold RULE.KEY=VALUE` overrides one.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gprof::findings {

// How a threshold is written: counts as whole numbers, bytes with an
// optional KB/MB/GB (base 1024), times with ns/us/ms/s, shares as 30% or 0.3.
enum class ThresholdUnit : uint8_t { kCount, kBytes, kTime, kShare };

struct ThresholdSpec {
  std::string_view key;
  double value;  // the default, in the unit's raw form (ns, bytes, 0..1)
  ThresholdUnit unit;
  std::string_view meaning;
};

// "10", "64 KB", "1ms", "30%": as the docs and --help print a value.
std::string format_threshold(double value, ThresholdUnit unit);
// The inverse; nullopt when `text` is not a value of that unit.
std::optional<double> parse_threshold(std::string_view text, ThresholdUnit unit);

class Thresholds {
 public:
  // The default of every rule's thresholds.
  Thresholds();
  // "RULE.KEY=VALUE"; the error message when it names no threshold or the
  // value does not parse.
  std::optional<std::string> set(std::string_view assignment);
  double get(std::string_view rule, std::string_view key) const;

 private:
  std::map<std::string, double, std::less<>> values_;  // "rule.key" -> value
};

}  // namespace gprof::findings
