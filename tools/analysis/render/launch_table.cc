#include "tools/analysis/render/launch_table.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "tools/analysis/render/short_name.h"
#include "tools/analysis/render/sort.h"
#include "tools/analysis/render/table_layout.h"

namespace gprof::analysis {
namespace {

using Time = LaunchSortKey::Time;
using Stat = LaunchSortKey::Stat;

struct TimeColumn {
  std::string_view title;  // "API"
  std::string_view key;    // "api"
  Time time;
};
constexpr std::array kTimes = {TimeColumn{"API", "api", Time::kApi},
                               TimeColumn{"Queue", "queue", Time::kQueue},
                               TimeColumn{"GPU", "gpu", Time::kGpu}};

struct StatColumn {
  std::string_view name;  // "avg"
  Stat stat;
};
constexpr std::array kStats = {StatColumn{"avg", Stat::kAvg}, StatColumn{"median", Stat::kMedian},
                               StatColumn{"min", Stat::kMin}, StatColumn{"max", Stat::kMax}};

const Summary& summary(const LaunchRow& row, Time time) {
  switch (time) {
    case Time::kApi:
      return row.api;
    case Time::kQueue:
      return row.queue;
    case Time::kGpu:
    case Time::kNone:
      break;
  }
  return row.gpu;
}

double statistic(const Summary& s, Stat stat) {
  switch (stat) {
    case Stat::kAvg:
      return s.avg;
    case Stat::kMedian:
      return s.median;
    case Stat::kMin:
      return static_cast<double>(s.min);
    case Stat::kMax:
      return static_cast<double>(s.max);
    case Stat::kCount:
    case Stat::kName:
      break;
  }
  return 0;
}

double value(const LaunchRow& row, LaunchSortKey key) {
  if (key.stat == Stat::kCount) return static_cast<double>(row.count);
  return statistic(summary(row, key.time), key.stat);
}

}  // namespace

std::optional<LaunchSortKey> parse_launch_sort_key(std::string_view text) {
  const std::string normalized = normalize_sort_name(text);
  if (normalized == "count" || normalized == "calls" || normalized == "#_of_calls")
    return LaunchSortKey{Time::kNone, Stat::kCount};
  if (normalized == "name" || normalized == "key") return LaunchSortKey{Time::kNone, Stat::kName};
  for (const TimeColumn& time : kTimes)
    for (const StatColumn& stat : kStats)
      if (normalized == std::string(time.key) + "_" + std::string(stat.name))
        return LaunchSortKey{time.time, stat.stat};
  return std::nullopt;
}

std::vector<std::string> launch_sort_key_names() {
  std::vector<std::string> names;
  for (const TimeColumn& time : kTimes)
    for (const StatColumn& stat : kStats)
      names.push_back(std::string(time.key) + "_" + std::string(stat.name));
  names.emplace_back("count");
  names.emplace_back("name");
  return names;
}

void sort_launch_rows(std::vector<LaunchRow>& rows, LaunchSortKey key) {
  if (key.stat == Stat::kName) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const LaunchRow& a, const LaunchRow& b) { return a.name < b.name; });
    return;
  }
  std::stable_sort(rows.begin(), rows.end(), [key](const LaunchRow& a, const LaunchRow& b) {
    return value(a, key) > value(b, key);
  });
}

std::string render_launch_table(std::vector<LaunchRow> rows, const LaunchTableOptions& options) {
  if (rows.empty()) return "";
  if (options.sort) sort_launch_rows(rows, *options.sort);
  const size_t max_name_width = std::max<size_t>(options.max_name_width, 4);
  const auto time = [&](double ns) { return format_time(ns, options.time_unit); };

  std::vector<std::string> headers = {"Name", "# of Calls"};
  for (const TimeColumn& t : kTimes)
    for (const StatColumn& s : kStats)
      headers.push_back(std::string(t.title) + " " + std::string(s.name));
  const auto name = [&](const LaunchRow& row) {
    return options.full_names ? row.name : readable_kernel_name(row.name);
  };
  size_t longest_name = 0;
  for (const LaunchRow& row : rows)
    longest_name = std::max(longest_name, display_length(name(row)));
  TableLayout layout;
  layout.add_column(name_column_width(longest_name, max_name_width));
  for (size_t i = 1; i < headers.size(); ++i) layout.add_column(kDefaultColumnWidth);

  std::string out = layout.separator();
  out += layout.line(headers);
  out += layout.separator();
  size_t printed = 0;
  for (const LaunchRow& row : rows) {
    if (options.row_limit != 0 && printed == options.row_limit) break;
    ++printed;
    std::vector<std::string> cells = {fit_name(name(row), max_name_width),
                                      std::to_string(row.count)};
    for (const TimeColumn& t : kTimes)
      for (const StatColumn& s : kStats)
        cells.push_back(time(statistic(summary(row, t.time), s.stat)));
    out += layout.line(cells);
  }
  out += layout.separator();
  return out;
}

CellTable launch_cells(std::vector<LaunchRow> rows, const LaunchTableOptions& options) {
  CellTable table;
  if (options.sort) sort_launch_rows(rows, *options.sort);
  table.titles = {"Name", "# of Calls"};
  table.keys = {"name", "calls"};
  for (const TimeColumn& t : kTimes) {
    for (const StatColumn& s : kStats) {
      table.titles.push_back(std::string(t.title) + " " + std::string(s.name));
      std::string key = std::string(t.title) + "_" + std::string(s.name) + "_ns";
      for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      table.keys.push_back(key);
    }
  }
  table.numeric.assign(table.keys.size(), true);
  table.numeric[0] = false;
  size_t printed = 0;
  for (const LaunchRow& row : rows) {
    if (options.row_limit != 0 && printed == options.row_limit) break;
    ++printed;
    // Markdown shows the short name, CSV and JSON the whole one.
    std::vector<std::string> display = {
        options.full_names ? row.name : readable_kernel_name(row.name), std::to_string(row.count)};
    std::vector<std::string> raw = {row.name, std::to_string(row.count)};
    for (const TimeColumn& t : kTimes) {
      for (const StatColumn& s : kStats) {
        const double ns = statistic(summary(row, t.time), s.stat);
        display.push_back(format_time(ns, options.time_unit));
        raw.push_back(std::to_string(static_cast<int64_t>(ns < 0 ? ns - 0.5 : ns + 0.5)));
      }
    }
    table.display.push_back(std::move(display));
    table.raw.push_back(std::move(raw));
  }
  return table;
}

}  // namespace gprof::analysis
