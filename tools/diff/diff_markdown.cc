#include "tools/diff/diff_markdown.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include "tools/analysis/table_markdown.h"
#include "tools/diff/change_text.h"
#include "tools/diff/diff_text.h"
#include "tools/diff/failure_text.h"

namespace gprof::diff {
namespace {

using analysis::escape_markdown;
using analysis::markdown_code;

constexpr const char* kArrow = "→";

// A PR comment is at most 65,536 characters, and a reader wants the worst
// first, not two thousand lines of them: the tables stop here, and the
// whole document stops short of GitHub's limit.
constexpr size_t kMaxFailureLines = 50;
constexpr size_t kMaxChangeLines = 100;
constexpr size_t kMaxDocument = 60000;

std::string more_line(size_t more, std::string_view what) {
  return fmt::format("… and {} more {}: the JSON output (`--output-json`) has them all.\n\n", more,
                     what);
}

std::string line(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const std::string& cell : cells) out += " " + cell + " |";
  return out + "\n";
}

// The header and the alignment line; the first `left` columns left-aligned.
std::string header(const std::vector<std::string>& titles, size_t left) {
  std::string align = "|";
  for (size_t i = 0; i < titles.size(); ++i) align += i < left ? " :--- |" : " ---: |";
  return line(titles) + align + "\n";
}

// Names are code spans: a PR comment must not mention "@user" or link "#12".
std::string name_cell(const RowKey& key) {
  std::string out = markdown_code(key.name);
  if (!key.group.empty()) out += " \\[" + markdown_code(key.group) + "\\]";
  return out;
}

// failure_subject's row label with its name as name_cell writes it.
std::string subject_cell(const Comparison& comparison, const Failure& failure) {
  if (!failure.row) return escape_markdown(failure_subject(comparison, failure));
  const RowKey& key = comparison.matched.rows[*failure.row].key;
  return escape_markdown(key.kind) + " " + name_cell(key);
}

// "4.000us → 6.000us (+50.0%)", or the value alone when it did not change.
std::string change_cell(const Spread& base, const Spread& now, Unit unit) {
  if (base.median == now.median) return escape_markdown(format_value(base.median, unit));
  return escape_markdown(fmt::format("{} {} {} ({})", format_value(base.median, unit), kArrow,
                                     format_value(now.median, unit),
                                     format_relative(base.median, now.median)));
}

Unit failure_unit(const Rule& rule) {
  if (rule.check != Check::kIncrease) return Unit::kCount;
  return rule.scope == Scope::kTotal ? total_unit(rule.total) : metric_unit(rule.metric);
}

std::string failures_section(const Comparison& comparison) {
  if (comparison.gate.failures.empty()) return "";
  const bool runs = comparison.noise.applies();
  std::vector<std::string> titles = {"Row", "Rule", "Base", "New", "Change", "%"};
  if (runs) titles.push_back("Runs: BASE / NEW");
  std::string out = "#### Failures\n\n" + header(titles, 2);
  const std::vector<Failure>& failures = comparison.gate.failures;
  for (size_t f = 0; f < std::min(failures.size(), kMaxFailureLines); ++f) {
    const Failure& failure = failures[f];
    const Rule& rule = comparison.options.rules[failure.rule];
    const Unit unit = failure_unit(rule);
    std::vector<std::string> cells = {
        subject_cell(comparison, failure),
        escape_markdown(rule_text(rule)),
        escape_markdown(format_value(failure.base.median, unit)),
        escape_markdown(format_value(failure.now.median, unit)),
        escape_markdown(format_change(failure.base.median, failure.now.median, unit)),
        escape_markdown(format_relative(failure.base.median, failure.now.median))};
    if (runs)
      cells.push_back(escape_markdown(
          fmt::format("{}..{} / {}..{}", format_value(failure.base.min, unit),
                      format_value(failure.base.max, unit), format_value(failure.now.min, unit),
                      format_value(failure.now.max, unit))));
    out += line(cells);
  }
  out += "\n";
  if (failures.size() > kMaxFailureLines)
    out += more_line(failures.size() - kMaxFailureLines, "failures");
  return out;
}

// A PR comment has no room for rows that did not change: only the others.
std::string changes_section(const Comparison& comparison) {
  std::vector<size_t> rows;
  for (size_t i : comparison.shown)
    if (comparison.gate.rows[i].status != Status::kSame) rows.push_back(i);
  const size_t changed =
      comparison.order.size() - rows_with_status(comparison, Status::kSame).size();
  if (changed == 0) return "#### Changes\n\nNo row changed.\n\n";
  if (rows.size() > kMaxChangeLines) rows.resize(kMaxChangeLines);
  std::string out =
      rows.size() < changed
          ? fmt::format("#### Top changes ({} of {} changed rows)\n\n", rows.size(), changed)
          : fmt::format("#### Changes ({} of {} rows changed)\n\n", changed,
                        comparison.order.size());
  const std::vector<Metric> metrics = shown_metrics(comparison);
  std::vector<std::string> titles = {"Name", "Kind", "Status"};
  for (Metric metric : metrics) titles.push_back(escape_markdown(metric_title(metric)));
  out += header(titles, 3);
  for (size_t i : rows) {
    const MatchedRow& row = comparison.matched.rows[i];
    std::vector<std::string> cells = {name_cell(row.key), row.key.kind,
                                      escape_markdown(status_text(comparison.gate.rows[i]))};
    for (Metric metric : metrics)
      cells.push_back(change_cell(row.base[metric], row.now[metric], metric_unit(metric)));
    out += line(cells);
  }
  return out + "\n";
}

std::string totals_section(const Comparison& comparison) {
  std::string out = "#### Totals\n\n" + header({"Total", "Base", "New", "Change", "%"}, 1);
  for (TotalMetric metric : kAllTotals) {
    const Unit unit = total_unit(metric);
    const double base = comparison.matched.base_totals[metric].median;
    const double now = comparison.matched.new_totals[metric].median;
    out += line({escape_markdown(total_title(metric)), escape_markdown(format_value(base, unit)),
                 escape_markdown(format_value(now, unit)),
                 escape_markdown(format_change(base, now, unit)),
                 escape_markdown(format_relative(base, now))});
  }
  return out + "\n";
}

std::string one_side_section(const Comparison& comparison, Status status, const char* title) {
  const std::vector<size_t> rows = rows_with_status(comparison, status);
  if (rows.empty()) return "";
  std::string out = fmt::format("#### {} ({})\n\n", title, rows.size()) +
                    header({"Name", "Kind", "# of Calls", "Self CUDA", "CPU total", "Fails"}, 2);
  for (size_t r = 0; r < std::min(rows.size(), kMaxChangeLines); ++r) {
    const size_t i = rows[r];
    const MatchedRow& row = comparison.matched.rows[i];
    const SideRow& side = status == Status::kNew ? row.now : row.base;
    out += line({name_cell(row.key), row.key.kind,
                 format_value(side[Metric::kCount].median, Unit::kCount),
                 escape_markdown(format_value(side[Metric::kSelfCuda].median, Unit::kTime)),
                 escape_markdown(format_value(side[Metric::kCpuTotal].median, Unit::kTime)),
                 comparison.gate.rows[i].failed ? "yes" : "no"});
  }
  out += "\n";
  if (rows.size() > kMaxChangeLines) out += more_line(rows.size() - kMaxChangeLines, "rows");
  return out;
}

}  // namespace

std::string render_markdown(const Comparison& comparison) {
  const bool failed = comparison.gate.regression();
  std::string out = fmt::format("### {} gprof diff: {}\n\n", failed ? "❌" : "✅",
                                escape_markdown(verdict_line(comparison)));
  out += fmt::format("**Base:** {} · **New:** {} · rows by {}\n\n",
                     escape_markdown(side_line(comparison.base)),
                     escape_markdown(side_line(comparison.now)), comparison.options.group_by);
  out += failures_section(comparison);
  out += changes_section(comparison);
  out += totals_section(comparison);
  out += one_side_section(comparison, Status::kNew, "New rows, only in NEW");
  out += one_side_section(comparison, Status::kVanished, "Vanished rows, only in BASE");
  out += fmt::format("Rules: {}  \n{}\n", escape_markdown(rules_line(comparison)),
                     escape_markdown(comparison.noise.description()));
  if (out.size() > kMaxDocument) {
    out.resize(out.rfind('\n', kMaxDocument) + 1);
    out +=
        "\n… cut to stay under GitHub's 65,536-character limit of a comment: the JSON output "
        "(`--output-json`) has everything.\n";
  }
  return out;
}

}  // namespace gprof::diff
