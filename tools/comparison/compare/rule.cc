#include "tools/comparison/compare/rule.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "tools/comparison/runs/run_rows.h"

namespace gprof::comparison {
namespace {

constexpr std::array<std::pair<std::string_view, Scope>, 5> kScopes = {{
    {"all", Scope::kAll},
    {"gpu", Scope::kGpu},
    {"api", Scope::kApi},
    {"range", Scope::kRange},
    {"total", Scope::kTotal},
}};

std::string names_of_metrics() {
  std::string out;
  for (Metric metric : kAllMetrics)
    out += (out.empty() ? "" : ", ") + std::string(metric_name(metric));
  return out;
}

std::string names_of_totals() {
  std::string out;
  for (TotalMetric metric : kAllTotals)
    out += (out.empty() ? "" : ", ") + std::string(total_name(metric));
  return out;
}

ParsedRule error(std::string_view text, std::string message) {
  return ParsedRule{std::nullopt, fmt::format("'{}': {}", text, message)};
}

// "+10", "10%", "2.5": percent >= 0.
std::optional<double> parse_percent(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (!text.empty() && text.back() == '%') text.remove_suffix(1);
  // A digit first, or ".5": no sign, no "inf" or "nan" from from_chars.
  const auto digit = [&](size_t i) {
    return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
  };
  if (!digit(0) && !(!text.empty() && text.front() == '.' && digit(1))) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

}  // namespace

std::string_view scope_name(Scope scope) {
  for (const auto& [name, s] : kScopes)
    if (s == scope) return name;
  return "all";
}

bool row_in_scope(Scope scope, std::string_view kind) {
  switch (scope) {
    case Scope::kAll:
      return true;
    case Scope::kGpu:
      return is_gpu_kind(kind);
    case Scope::kApi:
      return kind == "api";
    case Scope::kRange:
      return kind == "range";
    case Scope::kTotal:
      break;
  }
  return false;
}

ParsedRule parse_rule(std::string_view text) {
  const size_t colon = text.find(':');
  std::string_view subject = text.substr(0, colon);
  Rule rule;
  constexpr std::string_view kRepeated = "repeated.";
  if (subject.substr(0, kRepeated.size()) == kRepeated) {
    rule.repeated = true;
    subject.remove_prefix(kRepeated.size());
  }
  constexpr std::string_view kMatched = "matched.";
  if (subject.substr(0, kMatched.size()) == kMatched) {
    rule.matched = true;
    subject.remove_prefix(kMatched.size());
  }
  if (const size_t dot = subject.find('.'); dot != std::string_view::npos) {
    const std::string_view scope = subject.substr(0, dot);
    bool known = false;
    for (const auto& [name, s] : kScopes) {
      if (name != scope) continue;
      rule.scope = s;
      known = true;
    }
    if (!known)
      return error(text,
                   fmt::format("unknown scope '{}'; scopes: all, gpu, api, range, total", scope));
    subject.remove_prefix(dot + 1);
  }
  if (subject == "new" || subject == "vanished") {
    if (colon != std::string_view::npos)
      return error(text, fmt::format("'{}' takes no threshold", subject));
    if (rule.scope == Scope::kTotal)
      return error(text, "new and vanished apply to rows, not to totals");
    if (rule.matched)
      return error(text,
                   "'matched.' keeps the rows found on both sides, and new and vanished rows are "
                   "on one side only");
    if (rule.repeated) return error(text, "'repeated.' applies to METRIC:+PCT rules");
    rule.check = subject == "new" ? Check::kNew : Check::kVanished;
    return ParsedRule{rule, ""};
  }
  if (rule.scope == Scope::kTotal) {
    if (rule.matched)
      return error(text, "'matched.' applies to rows, not to totals (a total is on both sides)");
    const auto total = parse_total(subject);
    if (!total)
      return error(text, fmt::format("unknown total '{}'; totals: {}", subject, names_of_totals()));
    rule.total = *total;
  } else {
    const auto metric = parse_metric(subject);
    if (!metric)
      return error(text, fmt::format("unknown metric '{}'; metrics: {}, or new, vanished", subject,
                                     names_of_metrics()));
    rule.metric = *metric;
  }
  if (colon == std::string_view::npos)
    return error(text, fmt::format("a threshold is missing: {}:+PERCENT", subject));
  const auto percent = parse_percent(text.substr(colon + 1));
  if (!percent)
    return error(text,
                 fmt::format("'{}' is not a threshold: +PERCENT with PERCENT >= 0 (e.g. +10 or "
                             "+2.5%)",
                             text.substr(colon + 1)));
  rule.percent = *percent;
  return ParsedRule{rule, ""};
}

std::string rule_text(const Rule& rule) {
  const std::string scope =
      std::string(rule.repeated ? "repeated." : "") + std::string(rule.matched ? "matched." : "") +
      (rule.scope == Scope::kAll ? "" : std::string(scope_name(rule.scope)) + ".");
  switch (rule.check) {
    case Check::kNew:
      return scope + "new";
    case Check::kVanished:
      return scope + "vanished";
    case Check::kIncrease:
      break;
  }
  const std::string_view metric =
      rule.scope == Scope::kTotal ? total_name(rule.total) : metric_name(rule.metric);
  return fmt::format("{}{}:+{}%", scope, metric, rule.percent);
}

}  // namespace gprof::comparison
