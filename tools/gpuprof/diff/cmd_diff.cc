// gpuprof diff BASE NEW: compares the key-averages rows of two sets of runs
// and fails (exit 1) when a rule of the gate finds a regression, so that CI
// can keep a baseline and check each change against it (docs/diff.md).
#include <fmt/format.h>

#include <malloc.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/group_by.h"
#include "tools/analysis/read/parallel_files.h"
#include "tools/analysis/render/duration.h"
#include "tools/comparison/compare/comparison.h"
#include "tools/comparison/compare/rule.h"
#include "tools/comparison/compare/rule_sets.h"
#include "tools/comparison/render/diff_json.h"
#include "tools/comparison/render/diff_junit.h"
#include "tools/comparison/render/diff_markdown.h"
#include "tools/comparison/render/diff_text.h"
#include "tools/comparison/render/github_annotations.h"
#include "tools/comparison/render/no_comparison.h"
#include "tools/findings/load.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/jobs_option.h"
#include "tools/gpuprof/cli/progress.h"
#include "tools/gpuprof/cli/suggest.h"
#include "tools/gpuprof/cli/whole_number.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/diff/diff_sides.h"

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
  std::string rules;  // --rules NAME; empty: not given
  std::string min_time = "0";
  double alpha = comparison::kDefaultAlpha;
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
  bool full_names = false;
  std::vector<std::string> metrics;
  bool quiet = false;
  unsigned jobs = 0;
  bool no_findings = false;
};

std::vector<std::string> metric_names() {
  std::vector<std::string> out;
  for (comparison::Metric metric : comparison::kAllMetrics)
    out.emplace_back(comparison::metric_name(metric));
  return out;
}

int usage_error(const std::string& message) {
  fmt::print(stderr, "gpuprof: error: {}\n", message);
  return kExitUsage;
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (out) return true;
  fmt::print(stderr, "gpuprof: error: {}: cannot write\n", path);
  return false;
}

std::string render(const comparison::Comparison& comparison, const std::string& format,
                   size_t name_width) {
  if (format == "md") return comparison::render_markdown(comparison);
  if (format == "json") return comparison::render_json(comparison);
  if (format == "junit") return comparison::render_junit(comparison);
  return comparison::render_text(comparison, name_width);
}

// `compared`: set once there is a comparison, so that a failed write of one
// output is not taken for "nothing compared" (which would overwrite the
// outputs that were written).
// A rule that GPU records decide: CUDA times of rows or totals, or GPU
// activity rows appearing or vanishing. CPU-side rules (self_cpu, count,
// api.*) compare runs without GPU records as well.
bool reads_gpu_times(const std::vector<comparison::Rule>& rules) {
  for (const comparison::Rule& r : rules) {
    if (r.scope == comparison::Scope::kTotal) {
      if (r.total == comparison::TotalMetric::kSelfCuda) return true;
    } else if (r.check != comparison::Check::kIncrease) {
      if (r.scope == comparison::Scope::kGpu || r.scope == comparison::Scope::kAll) return true;
    } else if (r.metric == comparison::Metric::kSelfCuda ||
               r.metric == comparison::Metric::kCudaTotal) {
      return true;
    }
  }
  return false;
}

// Whether every run of a side is sidecar files (a JSON report holds no
// timeline to analyze).
bool all_sidecars(const std::vector<std::string>& side) {
  for (const std::vector<std::string>& run : expand_run_list(side).runs)
    for (const std::string& file : run)
      if (!is_sidecar_file(file)) return false;
  return true;
}

// The findings of `gpuprof analyze` (all rules, default thresholds) in NEW
// whose rule found nothing in BASE.
std::vector<comparison::NewFinding> new_findings(const findings::Analysis& before,
                                                 const findings::Analysis& after) {
  std::vector<comparison::NewFinding> out;
  for (const findings::Finding& f : after.findings)
    if (!before.fired(f.rule))
      out.push_back(comparison::NewFinding{f.rule, std::string(findings::severity_name(f.severity)),
                                           f.summary, findings::brief_text(f), f.impact_ns,
                                           f.impact_share});
  return out;
}

int compare_and_write(const DiffArgs& args, bool& compared, std::string& reason) {
  comparison::CompareOptions options;
  if (!args.rules.empty() && !args.fail_on.empty())
    return usage_error(
        "--rules and --fail-on go apart: --rules names a whole set, --fail-on gives the rules "
        "one by one instead");
  options.rule_set = args.fail_on.empty()
                         ? (args.rules.empty() ? comparison::kDefaultRuleSet : args.rules)
                         : std::string();
  if (!options.rule_set.empty()) {
    std::optional<std::vector<comparison::Rule>> set = comparison::rule_set(options.rule_set);
    if (!set)
      return usage_error(fmt::format("--rules: unknown rule set '{}'; sets: {}", args.rules,
                                     comparison::rule_set_names()));
    options.rules = std::move(*set);
  }
  for (const std::string& text : args.fail_on) {
    const comparison::ParsedRule parsed = comparison::parse_rule(text);
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
    options.sort = comparison::parse_metric(args.sort);
    if (!options.sort)
      return usage_error(fmt::format("--sort: unknown metric '{}'; metrics: {}{}", args.sort,
                                     kMetricNames, did_you_mean(args.sort, metric_names())));
  }
  options.limit = args.limit;
  options.group_by = args.group_by;
  options.full_names = args.full_names;
  for (const std::string& name : args.metrics) {
    const std::optional<comparison::Metric> metric = comparison::parse_metric(name);
    if (!metric)
      return usage_error(fmt::format("--metrics: unknown metric '{}'; metrics: {}{}", name,
                                     kMetricNames, did_you_mean(name, metric_names())));
    options.metrics.push_back(*metric);
  }

  if (args.github && (args.format == "json" || args.format == "junit"))
    return usage_error(fmt::format(
        "--github prints its lines on stdout, where they would break the {} document: write "
        "it with --output-{} FILE and keep --format text or md",
        args.format, args.format));
  const comparison::RowOptions rows{*analysis::parse_group_by(args.group_by), args.ranges,
                                    args.jobs};
  if (const std::optional<std::string> error = unmatchable_group(rows.group_by))
    return usage_error(*error);
  const bool listed = !args.base_list.empty() || !args.new_list.empty();
  if (listed && (args.base_list.empty() || args.new_list.empty()))
    return usage_error("--base and --new go together: each names one side");
  if (listed && !args.base.empty())
    return usage_error("give the sides either as BASE NEW or with --base and --new, not both");
  if (!listed && args.now.empty())
    return usage_error("two sides to compare are needed: BASE NEW, or --base ... --new ...");
  const std::vector<std::string> base_args = listed ? args.base_list : std::vector{args.base};
  const std::vector<std::string> new_args = listed ? args.new_list : std::vector{args.now};
  std::vector<std::string> sidecars;
  for (const std::vector<std::string>* side : {&base_args, &new_args})
    for (const std::vector<std::string>& run : expand_run_list(*side).runs)
      sidecars.insert(sidecars.end(), run.begin(), run.end());
  // Findings too when both sides are sidecar files (a JSON report holds no
  // timeline): a second pass over each side's files (analyze_files: a
  // stream), after the rows, so that both stay in bounded memory.
  const bool analyzed = !args.no_findings && all_sidecars(base_args) && all_sidecars(new_args);
  ProgressScope progress(sidecars, analyzed ? 2 : 1, args.quiet);
  InMemoryNotes notes;
  std::optional<LoadedSide> base = load_side(base_args, args.group_by, rows, notes);
  std::optional<LoadedSide> now = load_side(new_args, args.group_by, rows, notes);
  // The findings' pass is one stream per side, most of diff's time; the two
  // sides share nothing, so with --jobs 2 or more they run at once. Their
  // notes are printed afterwards, base first, as a serial run prints them.
  const unsigned jobs = args.jobs != 0 ? args.jobs : analysis::default_jobs();
  const bool sides_at_once = base && now && jobs >= 2;
  // Each side's share of the threads that read files at once (analyze_files),
  // by default within analyze's (each file read at once holds its own sorts).
  const unsigned side_jobs =
      std::max(1u, findings::analyze_jobs(args.jobs) / (sides_at_once ? 2 : 1));
  const auto findings = [&](const std::vector<std::string>& side) {
    std::vector<std::string> files;
    for (const std::vector<std::string>& run : expand_run_list(side).runs)
      files.insert(files.end(), run.begin(), run.end());
    findings::AnalyzedFiles out = findings::analyze_files_with_defaults(
        files, findings::Scope{args.ranges, {}, {}}, side_jobs);
    // As analyze shows them: a finding under 1% of the window is no news.
    findings::hide_below(out.analysis, findings::kDefaultMinShare);
    return out;
  };
  findings::AnalyzedFiles before;
  findings::AnalyzedFiles after;
  if (analyzed && (base || now)) {
    // The rows' reading threads leave what they freed in their malloc
    // arenas; given back first, the passes' peaks do not add up.
    malloc_trim(0);
    if (sides_at_once) {
      // A future of std::async waits for its thread when destroyed: an
      // exception on this side leaves only once the other side has ended.
      std::future<findings::AnalyzedFiles> other =
          std::async(std::launch::async, findings, std::cref(new_args));
      before = findings(base_args);
      after = other.get();
    } else {
      if (base) before = findings(base_args);
      if (now) after = findings(new_args);
    }
    print_in_memory_notes(before.in_memory, &notes);
    print_in_memory_notes(after.in_memory, &notes);
  }
  progress.finish();
  if (!base || !now) return kExitBadInput;
  if (const std::optional<std::string> error = unlike_runs(*base, *now)) {
    fmt::print(stderr, "gpuprof: error: {}\n", *error);
    return kExitBadInput;
  }
  if (const std::optional<std::string> error = gpu_data_mismatch(*base, *now);
      error && reads_gpu_times(options.rules)) {
    fmt::print(stderr, "gpuprof: error: {}\n", *error);
    reason = *error;
    return kExitBadInput;
  }
  if (!args.ranges.empty() && no_rows(*base) && no_rows(*now)) {
    fmt::print(stderr,
               "gpuprof: error: --range {} matches no range on either side: nothing to "
               "compare\n",
               quoted_list(args.ranges));
    return kExitBadInput;
  }
  comparison::Comparison comparison = comparison::compare(
      std::move(base->info), std::move(now->info), base->runs, now->runs, std::move(options));
  if (analyzed) comparison.new_findings = new_findings(before.analysis, after.analysis);
  compared = true;

  fmt::print("{}", render(comparison, args.format, args.name_width));
  if (args.github) fmt::print("{}", comparison::render_github_annotations(comparison));
  std::fflush(stdout);
  bool written = true;
  if (!args.output_md.empty())
    written = write_file(args.output_md, comparison::render_markdown(comparison)) && written;
  if (!args.output_json.empty())
    written = write_file(args.output_json, comparison::render_json(comparison)) && written;
  if (!args.output_junit.empty())
    written = write_file(args.output_junit, comparison::render_junit(comparison)) && written;
  if (!written) return kExitBadInput;
  return comparison.gate.regression() ? kExitRegression : kExitOk;
}

// Exit 2 still leaves the files a CI job's later steps read (a summary step
// runs `cat diff.md` whatever happened), saying that nothing was compared,
// and why when one reason stands for the whole comparison.
void write_error_outputs(const DiffArgs& args, const std::string& reason) {
  const std::string what =
      reason.empty()
          ? "gpuprof diff could not compare the runs (exit status 2: bad usage or input that "
            "cannot be used); the job's log has its error lines."
          : "gpuprof diff could not compare the runs (exit status 2): " + reason + ".";
  if (args.github && !reason.empty())
    fmt::print("::error title=gpuprof diff::{}\n", comparison::escape_workflow_data(what));
  if (!args.output_md.empty())
    write_file(args.output_md, comparison::render_no_comparison_markdown(what));
  if (!args.output_json.empty())
    write_file(args.output_json, comparison::render_no_comparison_json(what));
  if (!args.output_junit.empty())
    write_file(args.output_junit, comparison::render_no_comparison_junit(what));
}

int run(const DiffArgs& args) {
  bool compared = false;
  std::string reason;
  const int status = compare_and_write(args, compared, reason);
  if (!compared && (status == kExitBadInput || status == kExitUsage))
    write_error_outputs(args, reason);
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
                  "A rule of the gate, instead of a --rules set: "
                  "[repeated.][matched.][SCOPE.]METRIC:+PCT[%] fails rows (or totals) whose median "
                  "grew by more than PCT percent (from 0: always; with matched., only rows found "
                  "on both sides; with repeated., only when the runs allow a noise test); "
                  "[SCOPE.]new, "
                  "[SCOPE.]vanished fail rows found on one side only. SCOPE: all (default), "
                  "gpu (kernels, copies, sets), api, range, total. METRIC: count, self_cpu, "
                  "cpu_total, self_cuda, cuda_total, cpu_mem, self_cpu_mem, cuda_mem, "
                  "self_cuda_mem; total.METRIC: self_cpu, self_cuda, kernels, copies, sets, "
                  "api_calls. Repeatable")
      ->type_name("RULE")
      ->allow_extra_args(false);
  cmd->add_option(
         "--rules", args->rules,
         "The gate as a named set of rules. default: " + std::string(comparison::kDefaultRules) +
             " (the run's GPU and CPU totals, the CPU's only with several runs a side, "
             "and rows found on both sides, ranges and steps among them; rows that "
             "appeared or vanished are listed, and fail only through a total they make "
             "grow). strict: " +
             std::string(comparison::kStrictRules) +
             " (also any kernel, copy or set that appeared or vanished, and GPU time "
             "from nothing)")
      ->type_name("NAME")
      ->check(CLI::IsMember({"default", "strict"}));
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
                  "Key rows by name and: launch-config, stream, device or rank, as gpuprof report "
                  "does (thread and process ids differ from run to run and are refused); a JSON "
                  "baseline must have been made with the same")
      ->type_name("KEY")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (analysis::parse_group_by(value)) return {};
            const std::vector<std::string_view> keys = analysis::group_by_names();
            return fmt::format("unknown group-by key '{}'; valid keys: {}{}", value,
                               join_names(keys), did_you_mean(value, {keys.begin(), keys.end()}));
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
                  "and the memory metrics some row has; in Markdown count, self_cuda, cpu_total "
                  "and the metrics of the rules); JSON always has all")
      ->type_name("LIST")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--name-width", args->name_width,
                  "Widest name in the text table; longer names are cut and end in \"...\"")
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Range(size_t{4}, size_t{100000}));
  cmd->add_flag("--full-names", args->full_names,
                "Kernels in the tables by their whole demangled name; otherwise a name longer than "
                "55 characters is shortened, as report does (JSON and the failure lines always "
                "give it whole)");
  cmd->footer(
      "With several runs on a side, each metric is the median over its runs, and a rule fails "
      "only when the one-sided Mann-Whitney U test (exact) puts the NEW runs above the BASE "
      "runs at level --alpha; with few runs, only when every NEW run is above every BASE run "
      "(U = 0).\n"
      "Exit status: 0 no rule failed; 1 a regression (some rule failed); 2 bad usage or input "
      "that cannot be read (a missing or corrupt sidecar file, a JSON file that does not parse "
      "or is not a gprof.report version 1, a directory without sidecar files), or output that "
      "could not be written.");
  cmd->add_flag("--no-findings", args->no_findings,
                "Leave out the findings new in NEW (gpuprof analyze's rules), which take a second "
                "pass over each side's sidecar files (a stream too: memory does not grow with the "
                "runs either way)");
  add_quiet_flag(*cmd, args->quiet);
  add_jobs_option(*cmd, args->jobs);
  cmd->callback([args, &exit_status] { exit_status = run(*args); });
}

}  // namespace gprof::cli
