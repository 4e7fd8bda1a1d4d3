// gpuprof report FILE...: prof.key_averages().table() for sidecar files
// (--view ops, the default, and its parts ranges, api, kernels), copies and
// sets by kind and size (--view memory), or API / queue / GPU time per
// launch (--view launches). The views run in report_views.cc.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tools/analysis/aggregate/group_by.h"
#include "tools/analysis/render/launch_table.h"
#include "tools/analysis/render/sort.h"
#include "tools/analysis/render/transfer_table.h"
#include "tools/analysis/render/views.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/jobs_option.h"
#include "tools/gpuprof/cli/progress.h"
#include "tools/gpuprof/cli/suggest.h"
#include "tools/gpuprof/cli/whole_number.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/report/report_options.h"

namespace gprof::cli {
namespace {

template <typename Names>
std::string join(const Names& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

std::string sort_help() {
  return "Sort rows by KEY, descending (name: ascending). Default: cpu_time_total, ties by "
         "cuda_time_total (ops, ranges, api), cuda_time_total (kernels), name (memory: by kind, "
         "then size), gpu_avg (launches). Table keys: " +
         join(analysis::sort_key_names()) +
         ". memory keys: " + join(analysis::transfer_sort_key_names()) +
         ". launches keys: " + join(analysis::launch_sort_key_names()) +
         ". Column titles such as \"Self CPU\" or \"Queue median\" work too.";
}

// A validator from a parse function: accepted when it parses.
template <typename Parse, typename Names>
CLI::Validator parses(Parse parse, std::string what, const Names& names) {
  std::vector<std::string> valid(names.begin(), names.end());
  return CLI::Validator(
      [parse, what, valid](std::string& value) -> std::string {
        if (parse(value)) return {};
        return fmt::format("unknown {} '{}'; valid {}s: {}{}", what, value, what, join(valid),
                           did_you_mean(value, valid));
      },
      "");
}

int run(ReportOptions options) {
  Inputs inputs = expand_inputs(options.files);
  if (!report_input_errors(inputs.errors)) return kExitFileError;
  options.files = std::move(inputs.files);
  ProgressScope progress(options.files, 1, options.quiet);
  const analysis::View view = *analysis::parse_view(options.view);
  if (analysis::is_key_averages_view(view)) return run_key_averages_view(options);
  if (options.format != "table" && view != analysis::View::kLaunches &&
      view != analysis::View::kMemory) {
    fmt::print(stderr,
               "gpuprof: error: --format {} applies to the ops, ranges, api, kernels, launches "
               "and memory views; the {} view prints a table only\n",
               options.format, options.view);
    return kExitUsage;
  }
  // Those shape the key-averages rows; the other tables have their own keys.
  for (const auto& [given, flag] : {std::pair{options.group_by != "name", "--group-by"},
                                    std::pair{options.top_level_only, "--top-level-only"}}) {
    if (given) {
      fmt::print(stderr,
                 "gpuprof: error: {} applies to the ops, ranges, api and kernels views, not {}\n",
                 flag, options.view);
      return kExitUsage;
    }
  }
  return view == analysis::View::kMemory ? run_memory_view(options) : run_launches_view(options);
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Print the PyTorch key_averages() table of one or more sidecar files");
  cmd->add_option("files", options->files,
                  "Sidecar files and directories of them (aggregated together)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--view", options->view,
                  "ops: NVTX ranges, API calls, GPU activities and [memory] (torch's table); "
                  "ranges, api, kernels: those rows of it; memory: copies and sets by kind and "
                  "size with their bandwidth; launches: API, queue and GPU time of each call "
                  "that issued GPU work")
      ->type_name("VIEW")
      ->capture_default_str()
      ->check(parses(analysis::parse_view, "view", analysis::view_names()));
  cmd->add_option("--format", options->format,
                  "table: the text table; md: a GitHub Markdown table; csv: RFC 4180 with raw "
                  "nanoseconds and bytes; json: every row in raw units with the files' metadata "
                  "(docs/report-json.md). md, csv and json: ops, ranges, api and kernels views")
      ->type_name("FORMAT")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "md", "csv", "json"}));
  // Checked against the chosen view once parsing is done.
  cmd->add_option("--sort", options->sort, sort_help())
      ->type_name("KEY")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (analysis::parse_sort_key(value) || analysis::parse_launch_sort_key(value) ||
                analysis::parse_transfer_sort_key(value))
              return {};
            std::vector<std::string> keys;
            for (std::string_view key : analysis::sort_key_names()) keys.emplace_back(key);
            for (std::string_view key : analysis::transfer_sort_key_names()) keys.emplace_back(key);
            for (const std::string& key : analysis::launch_sort_key_names()) keys.push_back(key);
            return "unknown sort key '" + value + "'" + did_you_mean(value, keys);
          },
          ""));
  cmd->add_option("--group-by", options->group_by,
                  "Key rows by name and: launch-config (grid, block, shared memory), stream, "
                  "device, thread, process, rank, input-shape (PyTorch ops' sizes, as torch's "
                  "group_by_input_shape) or seq (PyTorch's sequence number, shared by a forward "
                  "op and its backward op); the value is shown after # of Calls")
      ->type_name("KEY")
      ->capture_default_str()
      ->check(parses(analysis::parse_group_by, "group-by key", analysis::group_by_names()));
  cmd->add_option("--range", options->ranges,
                  "Only what happened inside NVTX ranges named NAME ('*' matches any run of "
                  "characters); the ranges themselves included. Repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_flag("--top-level-only", options->top_level_only,
                "Only events without a parent range or call (torch's top_level_events_only); "
                "GPU activities and [memory] have none");
  cmd->add_flag("--profile-memory", options->profile_memory,
                "Show the memory columns even when no call allocated or freed memory");
  cmd->add_option("--step", options->steps,
                  "NVTX ranges that are training steps (glob); default: ProfilerStep*, else "
                  "step*. Repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--samples-per-step", options->samples_per_step,
                  "Samples (batch size) per step, to print samples/s")
      ->type_name("N")
      ->check(whole_number(1));
  cmd->add_option("--limit", options->limit, "Print at most N rows (0: all)")
      ->type_name("N")
      ->capture_default_str()
      ->check(whole_number(0));
  cmd->add_option("--time-unit", options->time_unit, "Print every time in this unit")
      ->type_name("UNIT")
      ->check(CLI::IsMember({"s", "ms", "us", "ns"}));
  cmd->add_option("--name-width", options->name_width,
                  "Widest name column; longer names are cut and end in \"...\"")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(size_t{4}, size_t{100000}));
  cmd->add_flag("--full-names", options->full_names,
                "Kernels by their whole demangled name; otherwise a name longer than 55 characters "
                "is shortened (no namespaces, return type or parameters; template arguments to one "
                "level). CSV and JSON always give the whole name");
  add_quiet_flag(*cmd, options->quiet);
  add_jobs_option(*cmd, options->jobs);
  cmd->footer(
      "Exit status: 0 printed; 1 a file could not be read (missing, not a sidecar file, of a "
      "newer format) or the output could not be written (a full disk); 2 bad usage (an unknown "
      "option, view, sort key or group-by key, a format "
      "the view does not print, a --range that matches no range).");
  cmd->callback([options, &exit_status] { exit_status = run(*options); });
}

}  // namespace gprof::cli
