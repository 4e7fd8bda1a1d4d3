// gpuprof diff BASE NEW: compares the key-averages rows of two sets of runs
// and fails (exit 1) when a rule of the gate finds a regression, so that CI
// can keep a baseline and check each change against it (docs/diff.md).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tools/analysis/duration.h"
#include "tools/analysis/group_by.h"
#include "tools/diff/comparison.h"
#include "tools/diff/diff_json.h"
#include "tools/diff/diff_junit.h"
#include "tools/diff/diff_markdown.h"
#include "tools/diff/diff_text.h"
#include "tools/diff/github_annotations.h"
#include "tools/diff/json_baseline.h"
#include "tools/diff/rule.h"
#include "tools/diff/sidecar_run.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/diagnostics.h"
#include "tools/gpuprof/input_paths.h"

namespace gprof::cli {
namespace {

// Unlike report's, unreadable input is a 2 here: 1 means "regression", and a
// CI job must not mistake a broken baseline for a slower program.
constexpr int kExitRegression = 1;
constexpr int kExitBadInput = 2;
constexpr const char* kMetricNames =
    "count, self_cpu, cpu_total, self_cuda, cuda_total, cpu_mem, self_cpu_mem, cuda_mem, "
    "self_cuda_mem";

struct DiffArgs {
  std::string base;
  std::string now;
  std::vector<std::string> fail_on;
  std::string min_time = "0";
  std::string group_by = "name";
  std::vector<std::string> ranges;
  std::string sort;
  size_t limit = 30;
  std::string format = "text";
  bool github = false;
  std::string output_md;
  std::string output_json;
  std::string output_junit;
  size_t name_width = 55;
  std::vector<std::string> metrics;
};

int usage_error(const std::string& message) {
  fmt::print(stderr, "gpuprof: error: {}\n", message);
  return kExitUsage;
}

// The file's text when it is a JSON document; nullopt for anything else (a
// sidecar file, or one the sidecar reader will explain it cannot open).
std::optional<std::string> json_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // The start decides, so that a sidecar file (or /dev/zero) is not read whole.
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (!diff::looks_like_json(text)) return std::nullopt;
  text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return text;
}

// Records of every kind the run's files delivered: none means nothing to
// compare (a file cut before its first records, a process that did no CUDA
// work), which must not pass for "every row vanished" or "no change".
uint64_t records_in(const std::vector<analysis::FileInfo>& files) {
  uint64_t records = 0;
  for (const analysis::FileInfo& file : files)
    records += file.status.records + file.status.gpu_records + file.status.range_events;
  return records;
}

std::string ranges_text(const std::vector<std::string>& ranges) {
  return ranges.empty() ? "(none)" : quoted_list(ranges);
}

struct LoadedSide {
  diff::SideInfo info;
  std::vector<diff::RunRows> runs;
};

// Each run of `argument` (expand_runs), with a line on stderr for every
// problem; nullopt when some run cannot be used.
std::optional<LoadedSide> load_side(const std::string& argument, const DiffArgs& args,
                                    const diff::RowOptions& rows) {
  Runs runs = expand_runs(argument);
  if (!report_input_errors(runs.errors)) return std::nullopt;
  LoadedSide side;
  side.info.argument = argument;
  side.info.runs = runs.runs;
  bool ok = true;
  for (const std::vector<std::string>& files : runs.runs) {
    const std::optional<std::string> text =
        files.size() == 1 ? json_text(files.front()) : std::nullopt;
    if (!text) {
      diff::SidecarRun run = diff::load_sidecar_run(files, rows);
      const bool readable = check_files(run.files);
      ok = readable && ok;
      print_table_notes(stderr, run.files);
      if (readable && records_in(run.files) == 0) {
        print_error(files.size() == 1 ? files.front() : argument, "no records: nothing to compare");
        ok = false;
      }
      side.runs.push_back(std::move(run.rows));
      continue;
    }
    const std::string& path = files.front();
    diff::JsonBaseline json = diff::parse_json_baseline(*text);
    if (!json.rows) {
      print_error(path, json.error);
      ok = false;
      continue;
    }
    if (analysis::parse_group_by(json.group_by) != analysis::parse_group_by(args.group_by)) {
      print_error(path, fmt::format("its rows are grouped by {}, this diff by {}; run the diff "
                                    "with --group-by {}",
                                    json.group_by, args.group_by, json.group_by));
      ok = false;
      continue;
    }
    if (!json.ranges) {
      if (!args.ranges.empty())
        print_warning(path, "--range applies to sidecar files; a JSON report is compared as it is");
    } else if (*json.ranges != args.ranges) {
      print_error(path, fmt::format("its rows are cut by --range {}, this diff's by {}; the "
                                    "diff needs the same --range as the report",
                                    ranges_text(*json.ranges), ranges_text(args.ranges)));
      ok = false;
      continue;
    }
    side.info.json_report = runs.runs.size() == 1;
    side.runs.push_back(std::move(*json.rows));
  }
  if (!ok) return std::nullopt;
  return side;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (out) return true;
  fmt::print(stderr, "gpuprof: error: {}: cannot write\n", path);
  return false;
}

std::string render(const diff::Comparison& comparison, const std::string& format,
                   size_t name_width) {
  if (format == "md") return diff::render_markdown(comparison);
  if (format == "json") return diff::render_json(comparison);
  if (format == "junit") return diff::render_junit(comparison);
  return diff::render_text(comparison, name_width);
}

int run(const DiffArgs& args) {
  diff::CompareOptions options;
  options.default_rules = args.fail_on.empty();
  options.rules = options.default_rules ? diff::default_rules() : std::vector<diff::Rule>{};
  for (const std::string& text : args.fail_on) {
    const diff::ParsedRule parsed = diff::parse_rule(text);
    if (!parsed.rule) return usage_error("--fail-on " + parsed.error);
    options.rules.push_back(*parsed.rule);
  }
  const std::optional<int64_t> min_time = analysis::parse_duration_ns(args.min_time);
  if (!min_time)
    return usage_error(
        fmt::format("--min-time: '{}' is not a time such as 0, 500ns, 20us, 1.5ms "
                    "or 2s",
                    args.min_time));
  options.min_time_ns = static_cast<double>(*min_time);
  if (!args.sort.empty()) {
    options.sort = diff::parse_metric(args.sort);
    if (!options.sort)
      return usage_error(
          fmt::format("--sort: unknown metric '{}'; metrics: {}", args.sort, kMetricNames));
  }
  options.limit = args.limit;
  options.group_by = args.group_by;
  for (const std::string& name : args.metrics) {
    const std::optional<diff::Metric> metric = diff::parse_metric(name);
    if (!metric)
      return usage_error(
          fmt::format("--metrics: unknown metric '{}'; metrics: {}", name, kMetricNames));
    options.metrics.push_back(*metric);
  }

  const diff::RowOptions rows{*analysis::parse_group_by(args.group_by), args.ranges};
  std::optional<LoadedSide> base = load_side(args.base, args, rows);
  std::optional<LoadedSide> now = load_side(args.now, args, rows);
  if (!base || !now) return kExitBadInput;
  const diff::Comparison comparison = diff::compare(std::move(base->info), std::move(now->info),
                                                    base->runs, now->runs, std::move(options));

  fmt::print("{}", render(comparison, args.format, args.name_width));
  if (args.github) fmt::print("{}", diff::render_github_annotations(comparison));
  std::fflush(stdout);
  bool written = true;
  if (!args.output_md.empty())
    written = write_file(args.output_md, diff::render_markdown(comparison)) && written;
  if (!args.output_json.empty())
    written = write_file(args.output_json, diff::render_json(comparison)) && written;
  if (!args.output_junit.empty())
    written = write_file(args.output_junit, diff::render_junit(comparison)) && written;
  if (!written) return kExitBadInput;
  return comparison.gate.regression() ? kExitRegression : kExitOk;
}

std::string join_names(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

}  // namespace

void add_diff_command(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "Compare two sets of runs row by row and fail on GPU time or launch regressions");
  cmd->add_option("base", args->base,
                  "The baseline: a sidecar file (one run), a directory (each sidecar file in it "
                  "a run; each subdirectory a run of the files under it, e.g. ranks), or a JSON "
                  "report (gpuprof report --format json --limit 0)")
      ->required()
      ->type_name("BASE");
  cmd->add_option("new", args->now, "What to check against it, in the same forms")
      ->required()
      ->type_name("NEW");
  cmd->add_option("--fail-on", args->fail_on,
                  "A rule of the gate: [SCOPE.]METRIC:+PCT[%] fails rows (or totals) whose "
                  "median grew by more than PCT percent (from 0: always); [SCOPE.]new, "
                  "[SCOPE.]vanished fail rows found on one side only. SCOPE: all (default), "
                  "gpu (kernels, copies, sets), api, range, total. METRIC: count, self_cpu, "
                  "cpu_total, self_cuda, cuda_total, cpu_mem, self_cpu_mem, cuda_mem, "
                  "self_cuda_mem; total.METRIC: self_cpu, self_cuda, kernels, copies, sets, "
                  "api_calls. Repeatable. Default: " +
                      std::string(diff::kDefaultRules))
      ->type_name("RULE")
      ->allow_extra_args(false);
  cmd->add_option("--min-time", args->min_time,
                  "Rows whose time (largest median of Self CUDA, CUDA total, CPU total on either "
                  "side) is below T are shown but never fail; units ns, us, ms, s")
      ->type_name("T")
      ->capture_default_str();
  cmd->add_option("--group-by", args->group_by,
                  "Key rows by name and: launch-config, stream, device, thread, process or rank, "
                  "as gpuprof report does; a JSON baseline must have been made with the same")
      ->type_name("KEY")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (analysis::parse_group_by(value)) return {};
            return fmt::format("unknown group-by key '{}'; valid keys: {}", value,
                               join_names(analysis::group_by_names()));
          },
          ""));
  cmd->add_option("--range", args->ranges,
                  "Only what happened inside NVTX ranges named NAME (glob), on both sides; "
                  "sidecar files only. Repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--sort", args->sort,
                  "Order rows by the size of this metric's change, largest first (default: "
                  "self_cuda, then cpu_total)")
      ->type_name("METRIC");
  cmd->add_option("--limit", args->limit,
                  "Rows in the text and Markdown tables (0: all); failed rows are always listed")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_option("--format", args->format,
                  "text: aligned tables and the verdict; md: a GitHub comment; json: schema "
                  "gprof.diff v1 with every row; junit: JUnit XML, a testcase per rule")
      ->type_name("FORMAT")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "md", "json", "junit"}));
  cmd->add_flag("--github", args->github,
                "Also print a GitHub Actions '::error title=gprof regression::...' line per "
                "failure on stdout");
  cmd->add_option("--output-md", args->output_md, "Also write the Markdown summary to FILE")
      ->type_name("FILE");
  cmd->add_option("--output-json", args->output_json, "Also write the JSON document to FILE")
      ->type_name("FILE");
  cmd->add_option("--output-junit", args->output_junit, "Also write the JUnit XML to FILE")
      ->type_name("FILE");
  cmd->add_option("--metrics", args->metrics,
                  "Metrics of the text and Markdown tables, comma-separated, e.g. "
                  "count,self_cuda for a narrow CI log (default: count, the CUDA and CPU times "
                  "and the memory metrics some row has); JSON always has all")
      ->type_name("LIST")
      ->delimiter(',');
  cmd->add_option("--name-width", args->name_width,
                  "Widest name in the text table; longer names are cut and end in \"...\"")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(size_t{4}, size_t{100000}));
  cmd->footer(
      "With several runs on a side, each metric is the median over its runs, and a rule fails "
      "only when every NEW run is above every BASE run (one-sided Mann-Whitney U = 0).\n"
      "Exit status: 0 no rule failed; 1 a regression (some rule failed); 2 bad usage or input "
      "that cannot be read (a missing or corrupt sidecar file, a JSON file that does not parse "
      "or is not a gprof.report version 1, a directory without sidecar files).");
  cmd->callback([args, &exit_status] { exit_status = run(*args); });
}

}  // namespace gprof::cli
