#include "tools/findings/rules/thresholds.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "tools/analysis/render/duration.h"
#include "tools/analysis/render/format.h"
#include "tools/findings/rules/rule.h"

namespace gprof::findings {
namespace {

std::optional<double> parse_number(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
      value < 0)
    return std::nullopt;
  return value;
}

std::optional<double> parse_bytes(std::string_view text) {
  static constexpr std::pair<std::string_view, double> kSuffixes[] = {
      {"GB", 1024.0 * 1024 * 1024}, {"MB", 1024.0 * 1024}, {"KB", 1024.0}, {"B", 1.0}};
  for (const auto& [suffix, scale] : kSuffixes) {
    if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
      const std::optional<double> number =
          parse_number(text.substr(0, text.size() - suffix.size()));
      if (!number) return std::nullopt;
      return std::round(*number * scale);
    }
  }
  return parse_number(text);
}

}  // namespace

std::string format_threshold(double value, ThresholdUnit unit) {
  switch (unit) {
    case ThresholdUnit::kBytes:
      return analysis::format_memory(static_cast<int64_t>(value));
    case ThresholdUnit::kTime:
      return analysis::format_time(value);
    case ThresholdUnit::kShare:
      return fmt::format("{:g}%", value * 100);
    case ThresholdUnit::kCount:
      break;
  }
  return fmt::format("{:g}", value);
}

std::optional<double> parse_threshold(std::string_view text, ThresholdUnit unit) {
  switch (unit) {
    case ThresholdUnit::kBytes:
      return parse_bytes(text);
    case ThresholdUnit::kTime: {
      const std::optional<int64_t> ns = analysis::parse_duration_ns(text);
      if (!ns) return std::nullopt;
      return static_cast<double>(*ns);
    }
    case ThresholdUnit::kShare: {
      std::optional<double> share;
      if (!text.empty() && text.back() == '%') {
        share = parse_number(text.substr(0, text.size() - 1));
        if (share) *share /= 100;
      } else {
        share = parse_number(text);
      }
      if (!share || *share > 1) return std::nullopt;
      return share;
    }
    case ThresholdUnit::kCount: {
      const std::optional<double> count = parse_number(text);
      if (!count || *count != std::floor(*count)) return std::nullopt;
      return count;
    }
  }
  return std::nullopt;
}

Thresholds::Thresholds() {
  for (const RuleSpec* rule : all_rules())
    for (const ThresholdSpec& spec : rule->thresholds)
      values_[fmt::format("{}.{}", rule->id, spec.key)] = spec.value;
}

std::optional<std::string> Thresholds::set(std::string_view assignment) {
  const size_t equals = assignment.find('=');
  const size_t dot = assignment.find('.');
  if (equals == std::string_view::npos || dot == std::string_view::npos || dot > equals)
    return fmt::format("'{}' is not RULE.KEY=VALUE (e.g. small-memcpy.min_count=20)", assignment);
  const std::string_view rule_id = assignment.substr(0, dot);
  const std::string_view key = assignment.substr(dot + 1, equals - dot - 1);
  const std::string_view value = assignment.substr(equals + 1);
  const RuleSpec* rule = find_rule(rule_id);
  if (rule == nullptr) return fmt::format("'{}': no rule '{}'", assignment, rule_id);
  for (const ThresholdSpec& spec : rule->thresholds) {
    if (spec.key != key) continue;
    const std::optional<double> parsed = parse_threshold(value, spec.unit);
    if (!parsed)
      return fmt::format("'{}': '{}' is not a value for {}.{} (like {})", assignment, value,
                         rule_id, key, format_threshold(spec.value, spec.unit));
    values_[fmt::format("{}.{}", rule_id, key)] = *parsed;
    return std::nullopt;
  }
  std::string keys;
  for (const ThresholdSpec& spec : rule->thresholds)
    keys += (keys.empty() ? "" : ", ") + std::string(spec.key);
  return fmt::format("'{}': {} has no threshold '{}'; its thresholds: {}", assignment, rule_id, key,
                     keys);
}

double Thresholds::get(std::string_view rule, std::string_view key) const {
  const auto it = values_.find(fmt::format("{}.{}", rule, key));
  return it == values_.end() ? 0 : it->second;
}

}  // namespace gprof::findings
