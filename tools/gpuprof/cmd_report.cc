// gpuprof report FILE...: prof.key_averages().table() for sidecar files.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/analysis/api_rows.h"
#include "tools/analysis/format.h"
#include "tools/analysis/key_averages.h"
#include "tools/analysis/profile.h"
#include "tools/analysis/sort.h"
#include "tools/analysis/table.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/diagnostics.h"

namespace gprof::cli {
namespace {

struct ReportOptions {
  std::vector<std::string> files;
  std::string sort = "cpu_time_total";
  size_t limit = 100;
  std::string time_unit;
  size_t name_width = 55;
};

int run_report(const ReportOptions& options) {
  analysis::KeyAverages averages;
  analysis::ApiRowsVisitor visitor(averages);
  const std::vector<analysis::FileInfo> files = analysis::load_files(options.files, visitor);
  if (!check_files(files)) return kExitFileError;

  analysis::TableOptions table;
  table.sort = analysis::parse_sort_key(options.sort);  // validated by CLI11
  table.row_limit = options.limit;
  table.max_name_width = options.name_width;
  if (!options.time_unit.empty()) table.time_unit = analysis::parse_time_unit(options.time_unit);

  const std::string text = analysis::render_table(averages.finish(), table);
  if (text.empty())
    fmt::print("No records.\n");
  else
    fmt::print("{}", text);
  const std::string losses = analysis::format_losses(analysis::total_losses(files));
  if (!losses.empty()) fmt::print("Lost records: {}\n", losses);
  return kExitOk;
}

std::string sort_help() {
  std::string keys;
  for (std::string_view name : analysis::sort_key_names()) {
    if (!keys.empty()) keys += ", ";
    keys += name;
  }
  return "Sort rows by KEY, descending (name: ascending). Keys: " + keys +
         "; column titles such as \"Self CPU\" work too.";
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Print the PyTorch key_averages() table of one or more sidecar files");
  cmd->add_option("files", options->files, "Sidecar files (aggregated together)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--sort", options->sort, sort_help())
      ->type_name("KEY")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (analysis::parse_sort_key(value)) return {};
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
  cmd->callback([options, &exit_status] { exit_status = run_report(*options); });
}

}  // namespace gprof::cli
