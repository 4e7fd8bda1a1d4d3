// gpuprof report FILE...: prof.key_averages().table() for sidecar files
// (--view ops, the default), or API / queue / GPU time per launch
// (--view launches).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/analysis/api_rows.h"
#include "tools/analysis/cupti_status.h"
#include "tools/analysis/format.h"
#include "tools/analysis/key_averages.h"
#include "tools/analysis/launch_table.h"
#include "tools/analysis/launches.h"
#include "tools/analysis/profile.h"
#include "tools/analysis/sort.h"
#include "tools/analysis/table.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/diagnostics.h"

namespace gprof::cli {
namespace {

constexpr const char* kViewOps = "ops";
constexpr const char* kViewLaunches = "launches";
// torch's table() is most often sorted by CPU total; a launch by its GPU time.
constexpr const char* kDefaultOpsSort = "cpu_time_total";
constexpr const char* kDefaultLaunchesSort = "gpu_avg";

struct ReportOptions {
  std::vector<std::string> files;
  std::string view = kViewOps;
  std::string sort;  // empty: the view's default
  size_t limit = 100;
  std::string time_unit;
  size_t name_width = 55;
};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

std::vector<std::string> ops_sort_names() {
  std::vector<std::string> names;
  for (std::string_view name : analysis::sort_key_names()) names.emplace_back(name);
  return names;
}

// What is under every table: why a file has no GPU times, what was lost.
void print_notes(const std::vector<analysis::FileInfo>& files) {
  for (const analysis::FileInfo& file : files) {
    if (!file.status.opened || file.gpu.records != 0) continue;
    fmt::print("GPU times were not recorded{}: {}\n",
               files.size() > 1 ? " in " + file.path : std::string(),
               analysis::missing_gpu_times_reason(file.cupti));
  }
  const std::string losses = analysis::format_losses(analysis::total_losses(files));
  if (!losses.empty()) fmt::print("Lost records: {}\n", losses);
}

int run_ops(const ReportOptions& options) {
  const std::string sort = options.sort.empty() ? kDefaultOpsSort : options.sort;
  analysis::TableOptions table;
  table.sort = analysis::parse_sort_key(sort);
  if (!table.sort) {
    fmt::print(stderr, "gpuprof: error: --sort: '{}' is not a column of the ops view; keys: {}\n",
               sort, join(ops_sort_names()));
    return kExitUsage;
  }
  table.row_limit = options.limit;
  table.max_name_width = options.name_width;
  if (!options.time_unit.empty()) table.time_unit = analysis::parse_time_unit(options.time_unit);

  analysis::KeyAverages averages;
  analysis::ApiRowsVisitor visitor(averages);
  const std::vector<analysis::FileInfo> files = analysis::load_files(options.files, visitor);
  if (!check_files(files)) return kExitFileError;
  const std::string text = analysis::render_table(averages.finish(), table);
  fmt::print("{}", text.empty() ? "No records.\n" : text);
  print_notes(files);
  return kExitOk;
}

int run_launches(const ReportOptions& options) {
  const std::string sort = options.sort.empty() ? kDefaultLaunchesSort : options.sort;
  analysis::LaunchTableOptions table;
  table.sort = analysis::parse_launch_sort_key(sort);
  if (!table.sort) {
    fmt::print(stderr,
               "gpuprof: error: --sort: '{}' is not a column of the launches view; keys: {}\n",
               sort, join(analysis::launch_sort_key_names()));
    return kExitUsage;
  }
  table.row_limit = options.limit;
  table.max_name_width = options.name_width;
  if (!options.time_unit.empty()) table.time_unit = analysis::parse_time_unit(options.time_unit);

  analysis::LaunchesVisitor visitor;
  const std::vector<analysis::FileInfo> files = analysis::load_files(options.files, visitor);
  if (!check_files(files)) return kExitFileError;
  const std::string text = analysis::render_launch_table(visitor.finish(), table);
  fmt::print("{}", text.empty() ? "No API call with GPU work.\n" : text);
  print_notes(files);
  return kExitOk;
}

std::string sort_help() {
  return "Sort rows by KEY, descending (name: ascending). Default: " +
         std::string(kDefaultOpsSort) + " (ops), " + kDefaultLaunchesSort +
         " (launches). ops keys: " + join(ops_sort_names()) +
         ". launches keys: " + join(analysis::launch_sort_key_names()) +
         ". Column titles such as \"Self CPU\" or \"Queue median\" work too.";
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Print the PyTorch key_averages() table of one or more sidecar files");
  cmd->add_option("files", options->files, "Sidecar files (aggregated together)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--view", options->view,
                  "ops: API calls and GPU activities (torch's table); launches: API, queue and "
                  "GPU time of each call that issued GPU work")
      ->type_name("VIEW")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (value == kViewOps || value == kViewLaunches) return {};
            return fmt::format("unknown view '{}'; valid views: {}, {}", value, kViewOps,
                               kViewLaunches);
          },
          ""));
  // Checked against the chosen view once parsing is done.
  cmd->add_option("--sort", options->sort, sort_help())
      ->type_name("KEY")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (analysis::parse_sort_key(value) || analysis::parse_launch_sort_key(value))
              return {};
            return "unknown sort key '" + value + "'";
          },
          ""));
  cmd->add_option("--limit", options->limit, "Print at most N rows (0: all)")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_option("--time-unit", options->time_unit, "Print every time in this unit")
      ->type_name("UNIT")
      ->check(CLI::IsMember({"s", "ms", "us", "ns"}));
  cmd->add_option("--name-width", options->name_width,
                  "Widest name column; longer names are cut and end in \"...\"")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(size_t{4}, size_t{100000}));
  cmd->callback([options, &exit_status] {
    exit_status = options->view == kViewLaunches ? run_launches(*options) : run_ops(*options);
  });
}

}  // namespace gprof::cli
