// gpuprof diff BASE NEW: compares the key-averages rows of two sets of runs
// and fails (exit 1) when a rule of the gate finds a regression, so that CI
// can keep a baseline and check each change against it (docs/diff.md).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
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
#include "tools/diff/xml_text.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/diagnostics.h"
#include "tools/gpuprof/input_paths.h"
#include "tools/gpuprof/whole_number.h"

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
  std::string base;  // the two positional arguments
  std::string now;
  std::vector<std::string> base_list;  // --base / --new: several arguments a side
  std::vector<std::string> new_list;
  std::vector<std::string> fail_on;
  std::string min_time = "0";
  double alpha = diff::kDefaultAlpha;
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
  // Processes (files) each run adds up; 0 where a JSON report does not say.
  std::vector<size_t> processes;
};

// Rows keyed by a process or thread id never match across runs: ids differ
// from run to run, and every row would be new on one side and vanished on
// the other. A rank is the same from run to run, when the launcher set one.
std::optional<std::string> unmatchable_group(analysis::GroupBy group_by) {
  if (group_by == analysis::GroupBy::kThread)
    return "--group-by thread keys rows by thread id, which differs from run to run, so no row "
           "would match; compare per rank with --group-by rank, or by name";
  if (group_by == analysis::GroupBy::kProcess)
    return "--group-by process keys rows by process id, which differs from run to run, so no "
           "row would match; record with RANK set and compare with --group-by rank";
  return std::nullopt;
}

// Each run of `arguments` (expand_runs), with a line on stderr for every
// problem; nullopt when some run cannot be used.
std::optional<LoadedSide> load_side(const std::vector<std::string>& arguments, const DiffArgs& args,
                                    const diff::RowOptions& rows) {
  Runs runs;
  for (const std::string& argument : arguments) {
    Runs more = expand_runs(argument);
    runs.runs.insert(runs.runs.end(), more.runs.begin(), more.runs.end());
    runs.errors.insert(runs.errors.end(), more.errors.begin(), more.errors.end());
  }
  if (!report_input_errors(runs.errors)) return std::nullopt;
  LoadedSide side;
  side.info.argument = fmt::format("{}", fmt::join(arguments, " "));
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
        print_error(files.front(), "no records: nothing to compare");
        ok = false;
      }
      if (rows.group_by == analysis::GroupBy::kRank)
        for (const analysis::FileInfo& file : run.files)
          if (readable && (!file.header || file.header->rank().empty())) {
            print_error(
                file.path,
                "no rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK and SLURM_PROCID were unset when it "
                "was recorded): "
                "--group-by rank would key its rows by process id, which differs from "
                "run to run");
            ok = false;
          }
      side.runs.push_back(std::move(run.rows));
      side.processes.push_back(files.size());
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
    if (json.rows->rows.empty()) {
      print_error(path,
                  "the report has no rows: nothing to compare (a run without records, or a "
                  "--range that matched nothing?)");
      ok = false;
      continue;
    }
    side.info.json_report = runs.runs.size() == 1;
    side.runs.push_back(std::move(*json.rows));
    side.processes.push_back(json.processes);
  }
  if (!ok) return std::nullopt;
  return side;
}

bool no_rows(const LoadedSide& side) {
  for (const diff::RunRows& run : side.runs)
    if (!run.rows.empty()) return false;
  return true;
}

// Runs that add up different numbers of processes compare sums of unlike
// things: most often a JSON baseline made from several repeated runs at once
// (report adds its files up), which would let any NEW run pass.
std::optional<std::string> unlike_runs(const LoadedSide& base, const LoadedSide& now) {
  std::set<size_t> counts;
  for (const LoadedSide* side : {&base, &now})
    for (size_t processes : side->processes)
      if (processes != 0) counts.insert(processes);
  if (counts.size() <= 1) return std::nullopt;
  const auto describe = [](const LoadedSide& side) {
    std::vector<std::string> out;
    for (size_t i = 0; i < side.runs.size(); ++i)
      out.push_back(side.processes[i] == 0 ? "?" : fmt::format("{}", side.processes[i]));
    return fmt::format("{}", fmt::join(out, ", "));
  };
  return fmt::format(
      "the runs add up different numbers of processes (BASE: {}; NEW: {} per run), so their "
      "sums do not compare. A run is one process's file or one directory of a job's files "
      "(ranks); a JSON report of several repeated runs adds them up: keep a report per run "
      "and give them with --base a.json b.json ...",
      describe(base), describe(now));
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

int compare_and_write(const DiffArgs& args) {
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
  options.alpha = args.alpha;
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

  if (args.github && (args.format == "json" || args.format == "junit"))
    return usage_error(fmt::format(
        "--github prints its lines on stdout, where they would break the {} document: write "
        "it with --output-{} FILE and keep --format text or md",
        args.format, args.format));
  const diff::RowOptions rows{*analysis::parse_group_by(args.group_by), args.ranges};
  if (const std::optional<std::string> error = unmatchable_group(rows.group_by))
    return usage_error(*error);
  const bool listed = !args.base_list.empty() || !args.new_list.empty();
  if (listed && (args.base_list.empty() || args.new_list.empty()))
    return usage_error("--base and --new go together: each names one side");
  if (listed && !args.base.empty())
    return usage_error("give the sides either as BASE NEW or with --base and --new, not both");
  if (!listed && args.now.empty())
    return usage_error("two sides to compare are needed: BASE NEW, or --base ... --new ...");
  std::optional<LoadedSide> base =
      load_side(listed ? args.base_list : std::vector{args.base}, args, rows);
  std::optional<LoadedSide> now =
      load_side(listed ? args.new_list : std::vector{args.now}, args, rows);
  if (!base || !now) return kExitBadInput;
  if (const std::optional<std::string> error = unlike_runs(*base, *now)) {
    fmt::print(stderr, "gpuprof: error: {}\n", *error);
    return kExitBadInput;
  }
  if (!args.ranges.empty() && no_rows(*base) && no_rows(*now)) {
    fmt::print(stderr,
               "gpuprof: error: --range {} matches no range on either side: nothing to "
               "compare\n",
               quoted_list(args.ranges));
    return kExitBadInput;
  }
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

// Exit 2 still leaves the files a CI job's later steps read (a summary step
// runs `cat diff.md` whatever happened), saying that nothing was compared.
void write_error_outputs(const DiffArgs& args) {
  const std::string what =
      "gpuprof diff could not compare the runs (exit status 2: bad usage or input that cannot "
      "be used); the job's log has its error lines.";
  if (!args.output_md.empty())
    write_file(args.output_md, "### ⚠️ gprof diff: no comparison\n\n" + what + "\n");
  if (!args.output_json.empty())
    write_file(args.output_json,
               nlohmann::ordered_json{
                   {"schema", "gprof.diff"}, {"version", 1}, {"verdict", "error"}, {"error", what}}
                       .dump(2) +
                   "\n");
  if (!args.output_junit.empty())
    write_file(args.output_junit,
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite "
               "name=\"gprof diff\" tests=\"1\" failures=\"0\" errors=\"1\">\n    <testcase "
               "name=\"comparison\" classname=\"gprof diff\">\n      <error message=\"" +
                   diff::xml_escape(what) +
                   "\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
}

int run(const DiffArgs& args) {
  const int status = compare_and_write(args);
  if (status == kExitBadInput || status == kExitUsage) write_error_outputs(args);
  return status;
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
      ->type_name("BASE");
  cmd->add_option("new", args->now, "What to check against it, in the same forms")
      ->type_name("NEW");
  cmd->add_option("--base", args->base_list,
                  "Instead of BASE NEW: the baseline as several arguments, each a sidecar file, "
                  "a JSON report or a directory, every run of them one run of the side "
                  "(--base runs/a-*.gprof)")
      ->type_name("FILE|DIR...")
      ->expected(1, -1);
  cmd->add_option("--new", args->new_list, "With --base: what to check, in the same forms")
      ->type_name("FILE|DIR...")
      ->expected(1, -1);
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
  cmd->add_option("--alpha", args->alpha,
                  "Level of the noise test with several runs a side: the chance, when nothing "
                  "changed, that a rule fails anyway")
      ->type_name("P")
      ->capture_default_str()
      ->check(CLI::Range(0.0001, 0.5));
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
      ->capture_default_str()
      ->check(whole_number(0));
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
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--name-width", args->name_width,
                  "Widest name in the text table; longer names are cut and end in \"...\"")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(size_t{4}, size_t{100000}));
  cmd->footer(
      "With several runs on a side, each metric is the median over its runs, and a rule fails "
      "only when the one-sided Mann-Whitney U test (exact) puts the NEW runs above the BASE "
      "runs at level --alpha; with few runs, only when every NEW run is above every BASE run "
      "(U = 0).\n"
      "Exit status: 0 no rule failed; 1 a regression (some rule failed); 2 bad usage or input "
      "that cannot be read (a missing or corrupt sidecar file, a JSON file that does not parse "
      "or is not a gprof.report version 1, a directory without sidecar files).");
  cmd->callback([args, &exit_status] { exit_status = run(*args); });
}

}  // namespace gprof::cli
