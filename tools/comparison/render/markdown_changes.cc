#include "tools/comparison/render/markdown_changes.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "tools/analysis/render/table_markdown.h"
#include "tools/comparison/render/change_text.h"
#include "tools/comparison/render/diff_text.h"
#include "tools/comparison/render/markdown_cells.h"

namespace gprof::comparison {
namespace {

using analysis::escape_markdown;

// A PR comment has room for the worst rows, not for all of them.
constexpr size_t kMaxLines = 100;
constexpr const char* kFailedMark = "❌";

// Which (row, metric) cells a rule failed on: an increase rule's metric, the
// count for a row that appeared or vanished.
using FailedCells = std::set<std::pair<size_t, Metric>>;

FailedCells failed_cells(const Comparison& comparison) {
  FailedCells out;
  for (const Failure& failure : comparison.gate.failures) {
    if (!failure.row) continue;
    const Rule& rule = comparison.options.rules[failure.rule];
    out.emplace(*failure.row, rule.check == Check::kIncrease ? rule.metric : Metric::kCount);
  }
  return out;
}

// "18.000us (+50.0%)": NEW and its change; the value alone when unchanged.
std::string cell(const Spread& base, const Spread& now, Unit unit, bool failed) {
  std::string text = format_value(now.median, unit);
  if (base.median != now.median) text += " (" + format_relative(base.median, now.median) + ")";
  text = escape_markdown(text);
  return failed ? fmt::format("{} **{}**", kFailedMark, text) : text;
}

// A row whose shown cells did not change (a range whose CUDA total moved
// while the table shows Self CUDA) says what did, or it reads as unchanged:
// "changed: CUDA total +36.4%".
std::string status_cell(const Comparison& comparison, size_t i,
                        const std::vector<Metric>& metrics) {
  const MatchedRow& row = comparison.matched.rows[i];
  std::string status = status_text(comparison.gate.rows[i]);
  const auto moved = [&](Metric m) { return row.base[m].median != row.now[m].median; };
  if (std::any_of(metrics.begin(), metrics.end(), moved)) return escape_markdown(status);
  for (Metric metric : kAllMetrics) {
    if (!moved(metric)) continue;
    status += fmt::format(": {} {}", metric_title(metric),
                          format_relative(row.base[metric].median, row.now[metric].median));
    break;
  }
  return escape_markdown(status);
}

std::string table(const Comparison& comparison, const std::vector<size_t>& rows,
                  const std::vector<Metric>& metrics, const FailedCells& failed) {
  std::vector<std::string> titles = {"Row", "Status"};
  for (Metric metric : metrics) titles.push_back(escape_markdown(metric_title(metric)));
  std::string out = markdown_header(titles, 2);
  for (size_t r = 0; r < std::min(rows.size(), kMaxLines); ++r) {
    const size_t i = rows[r];
    const MatchedRow& row = comparison.matched.rows[i];
    std::vector<std::string> cells = {
        markdown_row(row.key, kMarkdownNameWidth, comparison.options.full_names),
        status_cell(comparison, i, metrics)};
    for (Metric metric : metrics)
      cells.push_back(cell(row.base[metric], row.now[metric], metric_unit(metric),
                           failed.contains({i, metric})));
    out += markdown_line(cells);
  }
  if (rows.size() > kMaxLines)
    out += fmt::format("\n… and {} more rows: the JSON output (`--output-json`) has them all.\n",
                       rows.size() - kMaxLines);
  return out;
}

}  // namespace

std::vector<Metric> compact_metrics(const Comparison& comparison) {
  if (!comparison.options.metrics.empty()) return comparison.options.metrics;
  std::set<Metric> wanted = {Metric::kCount, Metric::kSelfCuda, Metric::kCpuTotal};
  // A rule's metric when the table has a row it looks at: the default gate's
  // range.cuda_total adds no column to a run without ranges.
  for (const Rule& rule : comparison.options.rules) {
    if (rule.scope == Scope::kTotal || rule.check != Check::kIncrease) continue;
    const bool in_scope = std::any_of(
        comparison.shown.begin(), comparison.shown.end(),
        [&](size_t i) { return row_in_scope(rule.scope, comparison.matched.rows[i].key.kind); });
    if (in_scope) wanted.insert(rule.metric);
  }
  // In the order of the report's columns, as the text table has them.
  std::vector<Metric> out;
  for (Metric metric :
       {Metric::kCount, Metric::kSelfCuda, Metric::kCudaTotal, Metric::kSelfCpu, Metric::kCpuTotal,
        Metric::kCpuMem, Metric::kSelfCpuMem, Metric::kCudaMem, Metric::kSelfCudaMem})
    if (wanted.contains(metric)) out.push_back(metric);
  return out;
}

std::string markdown_changes(const Comparison& comparison) {
  std::vector<size_t> shown, noise;
  for (size_t i : comparison.shown) {
    const RowVerdict& verdict = comparison.gate.rows[i];
    if (verdict.status == Status::kSame) continue;
    (verdict.within_noise ? noise : shown).push_back(i);
  }
  const size_t changed =
      comparison.order.size() - rows_with_status(comparison, Status::kSame).size();
  if (changed == 0) return "#### Changes\n\nNo row changed.\n\n";
  const size_t listed = shown.size() + noise.size();
  std::string out = listed < changed ? fmt::format("#### Top changes ({} of {} changed rows)\n\n",
                                                   listed, changed)
                                     : fmt::format("#### Changes ({} of {} rows changed)\n\n",
                                                   changed, comparison.order.size());
  const std::vector<Metric> metrics = compact_metrics(comparison);
  const FailedCells failed = failed_cells(comparison);
  if (!shown.empty()) out += table(comparison, shown, metrics, failed) + "\n";
  if (!noise.empty())
    out += fmt::format("<details><summary>{} {} changed only within noise</summary>\n\n",
                       noise.size(), noise.size() == 1 ? "row" : "rows") +
           table(comparison, noise, metrics, failed) + "\n</details>\n\n";
  out += "Each cell is the NEW value and its change from BASE";
  out += failed.empty() ? ".\n\n"
                        : fmt::format("; {} marks a value a rule failed on.\n\n", kFailedMark);
  return out;
}

}  // namespace gprof::comparison
