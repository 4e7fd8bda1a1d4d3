#include "tools/comparison/render/diff_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tools/analysis/render/format.h"
#include "tools/comparison/render/change_text.h"
#include "tools/comparison/render/failure_text.h"
#include "tools/comparison/render/markdown_cells.h"
#include "tools/comparison/render/text_grid.h"

namespace gprof::comparison {
namespace {

std::string cut(const std::string& name, size_t width) {
  if (analysis::display_length(name) <= width) return analysis::single_line(name);
  return analysis::single_line(analysis::display_prefix(name, width - 3)) + "...";
}

std::string rows_table(const Comparison& comparison, size_t name_width) {
  const std::vector<Metric> metrics = shown_metrics(comparison);
  const bool grouped = std::any_of(comparison.shown.begin(), comparison.shown.end(), [&](size_t i) {
    return !comparison.matched.rows[i].key.group.empty();
  });
  TextGrid grid;
  grid.headers = {"Name", "Kind"};
  if (grouped) grid.headers.push_back("Group");
  grid.headers.push_back("Status");
  grid.groups.push_back(ColumnGroup{"", grid.headers.size()});
  for (Metric metric : metrics) {
    grid.groups.push_back(ColumnGroup{std::string(metric_title(metric)), 4});
    for (const char* header : {"Base", "New", "Change", "%"}) grid.headers.push_back(header);
  }
  grid.left.assign(grid.headers.size(), false);
  std::fill(grid.left.begin(),
            grid.left.begin() + static_cast<std::ptrdiff_t>(grid.groups[0].columns), true);
  for (size_t i : comparison.shown) {
    const MatchedRow& row = comparison.matched.rows[i];
    std::vector<std::string> cells = {
        cut(table_name(row.key, comparison.options.full_names), name_width), row.key.kind};
    if (grouped) cells.push_back(row.key.group);
    cells.push_back(status_text(comparison.gate.rows[i]));
    for (Metric metric : metrics) {
      const Unit unit = metric_unit(metric);
      const double base = row.base[metric].median;
      const double now = row.now[metric].median;
      cells.push_back(format_value(base, unit));
      cells.push_back(format_value(now, unit));
      // Blank when nothing changed, so that the changes stand out.
      cells.push_back(base == now ? "" : format_change(base, now, unit));
      cells.push_back(base == now ? "" : format_relative(base, now));
    }
    grid.rows.push_back(std::move(cells));
  }
  return render_grid(grid);
}

std::string totals_table(const Comparison& comparison) {
  TextGrid grid;
  grid.headers = {"Totals", "Base", "New", "Change", "%"};
  grid.left = {true, false, false, false, false};
  for (TotalMetric metric : kAllTotals) {
    const Unit unit = total_unit(metric);
    const double base = comparison.matched.base_totals[metric].median;
    const double now = comparison.matched.new_totals[metric].median;
    grid.rows.push_back({std::string(total_title(metric)), format_value(base, unit),
                         format_value(now, unit), base == now ? "" : format_change(base, now, unit),
                         base == now ? "" : format_relative(base, now)});
  }
  return render_grid(grid);
}

// "  kernel scale(float*, int): 10 calls, Self CUDA 200.000us, CPU total 0.000us"
std::string one_side_rows(const Comparison& comparison, Status status, const char* title) {
  const std::vector<size_t> rows = rows_with_status(comparison, status);
  if (rows.empty()) return "";
  std::string out = fmt::format("{} ({}):\n", title, rows.size());
  for (size_t i : rows) {
    const MatchedRow& row = comparison.matched.rows[i];
    const SideRow& side = status == Status::kNew ? row.now : row.base;
    out += fmt::format("  {}: {}, Self CUDA {}, CPU total {}{}\n", row_label(row.key),
                       format_calls(side[Metric::kCount].median),
                       format_value(side[Metric::kSelfCuda].median, Unit::kTime),
                       format_value(side[Metric::kCpuTotal].median, Unit::kTime),
                       comparison.gate.rows[i].failed ? " (fails)" : "");
  }
  return out;
}

// A CI log is read about 120 columns wide; the rules of a set and the notes
// on them are longer than that.
constexpr size_t kRulesWidth = 100;

// `text` cut at spaces into lines of at most `width` (a longer word stays
// whole), each after the first indented by two spaces.
std::string wrapped(const std::string& text, size_t width) {
  std::string out, line;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find(' ', start), text.size());
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = "  " + word;
    } else {
      line += (line.empty() ? "" : " ") + word;
    }
  }
  return out + line + "\n";
}

}  // namespace

std::string status_text(const RowVerdict& verdict) {
  if (verdict.within_noise) return "within noise";
  std::string out(status_name(verdict.status));
  if (verdict.failed && verdict.status != Status::kRegression) out += ", fails";
  // A change that no rule could fail: say so, or it reads as "checked, fine".
  if (verdict.below_min_time && verdict.status != Status::kSame) out += ", < min-time";
  return out;
}

std::string render_text(const Comparison& comparison, size_t name_width) {
  std::string out = fmt::format("gpuprof diff\n  base: {}\n  new:  {}\n  rows by {}; {}\n\n",
                                side_line(comparison.base), side_line(comparison.now),
                                comparison.options.group_by, comparison.noise.description());
  if (comparison.matched.rows.empty()) {
    out += "No rows on either side.\n";
  } else {
    out += rows_table(comparison, std::max<size_t>(name_width, 4));
    if (comparison.shown.size() < comparison.order.size())
      out += fmt::format("{} of {} rows shown (every failed row included; --limit 0 shows all)\n",
                         comparison.shown.size(), comparison.order.size());
  }
  out += "\n" + totals_table(comparison);
  for (const auto& [status, title] :
       {std::pair{Status::kNew, "New rows, only in NEW"},
        std::pair{Status::kVanished, "Vanished rows, only in BASE"}}) {
    const std::string rows = one_side_rows(comparison, status, title);
    if (!rows.empty()) out += "\n" + rows;
  }
  if (comparison.new_findings && !comparison.new_findings->empty()) {
    out += "\nNew findings, only in NEW (gpuprof analyze):\n";
    for (const NewFinding& finding : *comparison.new_findings) out += "  " + finding.line + "\n";
  }
  out += "\n" + wrapped("Rules: " + rules_line(comparison), kRulesWidth) +
         verdict_line(comparison) + "\n";
  for (const Failure& failure : comparison.gate.failures)
    out += "  " + failure_line(comparison, failure, "->") + "\n";
  return out;
}

}  // namespace gprof::comparison
