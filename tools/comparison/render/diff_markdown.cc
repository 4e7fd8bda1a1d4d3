#include "tools/comparison/render/diff_markdown.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include "tools/analysis/render/table_markdown.h"
#include "tools/comparison/render/change_text.h"
#include "tools/comparison/render/diff_text.h"
#include "tools/comparison/render/failure_text.h"
#include "tools/comparison/render/markdown_cells.h"
#include "tools/comparison/render/markdown_changes.h"

namespace gprof::comparison {
namespace {

using analysis::escape_markdown;

// A PR comment is at most 65,536 characters, and a reader wants the worst
// first, not two thousand lines of them: the tables stop here, and the
// whole document stops short of GitHub's limit.
constexpr size_t kMaxFailureLines = 50;
constexpr size_t kMaxOneSideLines = 100;
constexpr size_t kMaxDocument = 60000;

std::string more_line(size_t more, std::string_view what) {
  return fmt::format("… and {} more {}: the JSON output (`--output-json`) has them all.\n\n", more,
                     what);
}

// failure_subject's row label with its name as the tables write it.
std::string subject_cell(const Comparison& comparison, const Failure& failure) {
  if (!failure.row) return escape_markdown(failure_subject(comparison, failure));
  return markdown_row(comparison.matched.rows[*failure.row].key, kMarkdownNameWidth);
}

Unit failure_unit(const Rule& rule) {
  if (rule.check != Check::kIncrease) return Unit::kCount;
  return rule.scope == Scope::kTotal ? total_unit(rule.total) : metric_unit(rule.metric);
}

// With a noise test, each side's runs (min..max) behind the failures, folded:
// a column of them would take the table past a comment's width.
std::string runs_block(const Comparison& comparison, size_t shown) {
  std::string out =
      "<details><summary>The runs behind each failure (min..max of each side)</summary>\n\n" +
      markdown_header({"Row", "Rule", "BASE runs", "NEW runs"}, 2);
  for (size_t f = 0; f < shown; ++f) {
    const Failure& failure = comparison.gate.failures[f];
    const Rule& rule = comparison.options.rules[failure.rule];
    const Unit unit = failure_unit(rule);
    out += markdown_line({subject_cell(comparison, failure), escape_markdown(rule_text(rule)),
                          escape_markdown(format_value(failure.base.min, unit) + ".." +
                                          format_value(failure.base.max, unit)),
                          escape_markdown(format_value(failure.now.min, unit) + ".." +
                                          format_value(failure.now.max, unit))});
  }
  return out + "\n</details>\n\n";
}

std::string failures_section(const Comparison& comparison) {
  if (comparison.gate.failures.empty()) return "";
  std::string out = "#### Failures\n\n" + markdown_header({"Row", "Rule", "Base", "New", "%"}, 2);
  const std::vector<Failure>& failures = comparison.gate.failures;
  const size_t shown = std::min(failures.size(), kMaxFailureLines);
  for (size_t f = 0; f < shown; ++f) {
    const Failure& failure = failures[f];
    const Rule& rule = comparison.options.rules[failure.rule];
    const Unit unit = failure_unit(rule);
    out +=
        markdown_line({subject_cell(comparison, failure), escape_markdown(rule_text(rule)),
                       escape_markdown(format_value(failure.base.median, unit)),
                       escape_markdown(format_value(failure.now.median, unit)),
                       escape_markdown(format_relative(failure.base.median, failure.now.median))});
  }
  out += "\n";
  if (failures.size() > kMaxFailureLines)
    out += more_line(failures.size() - kMaxFailureLines, "failures");
  if (comparison.noise.applies()) out += runs_block(comparison, shown);
  return out;
}

std::string totals_section(const Comparison& comparison) {
  std::string out = "#### Totals\n\n" + markdown_header({"Total", "Base", "New", "%"}, 1);
  for (TotalMetric metric : kAllTotals) {
    const Unit unit = total_unit(metric);
    const double base = comparison.matched.base_totals[metric].median;
    const double now = comparison.matched.new_totals[metric].median;
    out += markdown_line(
        {escape_markdown(total_title(metric)), escape_markdown(format_value(base, unit)),
         escape_markdown(format_value(now, unit)), escape_markdown(format_relative(base, now))});
  }
  return out + "\n";
}

std::string one_side_section(const Comparison& comparison, Status status, const char* title) {
  const std::vector<size_t> rows = rows_with_status(comparison, status);
  if (rows.empty()) return "";
  std::string out =
      fmt::format("#### {} ({})\n\n", title, rows.size()) +
      markdown_header({"Name", "Kind", "# of Calls", "Self CUDA", "CPU total", "Fails"}, 2);
  for (size_t r = 0; r < std::min(rows.size(), kMaxOneSideLines); ++r) {
    const size_t i = rows[r];
    const MatchedRow& row = comparison.matched.rows[i];
    const SideRow& side = status == Status::kNew ? row.now : row.base;
    out +=
        markdown_line({markdown_name(row.key, kMarkdownNameWidth, comparison.options.full_names),
                       row.key.kind, format_value(side[Metric::kCount].median, Unit::kCount),
                       escape_markdown(format_value(side[Metric::kSelfCuda].median, Unit::kTime)),
                       escape_markdown(format_value(side[Metric::kCpuTotal].median, Unit::kTime)),
                       comparison.gate.rows[i].failed ? "yes" : "no"});
  }
  out += "\n";
  if (rows.size() > kMaxOneSideLines) out += more_line(rows.size() - kMaxOneSideLines, "rows");
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
  out += markdown_changes(comparison);
  out += totals_section(comparison);
  out += one_side_section(comparison, Status::kNew, "New rows, only in NEW");
  out += one_side_section(comparison, Status::kVanished, "Vanished rows, only in BASE");
  if (comparison.new_findings && !comparison.new_findings->empty()) {
    out += "**New findings, only in NEW** (`gpuprof analyze`):\n\n";
    for (const NewFinding& finding : *comparison.new_findings)
      out += "- " + escape_markdown(finding.line) + "\n";
    out += "\n";
  }
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

}  // namespace gprof::comparison
