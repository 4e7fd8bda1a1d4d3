// gpuprof analyze FILE|DIR...: runs the rules of tools/findings over sidecar
// files and prints what they found, with the evidence, where it happened and
// a suggestion; --fail-on makes it a CI gate (docs/analyze.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/findings/load.h"
#include "tools/findings/render/render.h"
#include "tools/findings/rules/rules.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/progress.h"
#include "tools/gpuprof/cli/suggest.h"
#include "tools/gpuprof/cli/whole_number.h"
#include "tools/gpuprof/commands.h"

namespace gprof::cli {
namespace {

// As diff's: 1 means "a gated rule fired", so unreadable input must be
// something else, or a CI job would take a broken file for a finding.
constexpr int kExitFired = 1;
constexpr int kExitBadInput = 2;

struct AnalyzeArgs {
  std::vector<std::string> files;
  std::string format = "table";
  std::vector<std::string> rules;
  std::vector<std::string> fail_on;
  std::vector<std::string> ranges;
  std::vector<std::string> steps;
  std::vector<std::string> data_ranges;
  std::vector<std::string> thresholds;
  std::string min_share = "1%";
  bool full_names = false;
  bool quiet = false;
  unsigned jobs = 0;  // 0: findings::analyze_jobs' default
};

std::vector<std::string> rule_ids() {
  std::vector<std::string> out;
  for (const findings::RuleSpec* rule : findings::all_rules()) out.emplace_back(rule->id);
  return out;
}

int usage_error(const std::string& message) {
  fmt::print(stderr, "gpuprof: error: {}\n", message);
  return kExitUsage;
}

std::optional<std::string> unknown_rule(const std::string& option, const std::string& id) {
  if (findings::find_rule(id) != nullptr) return std::nullopt;
  return fmt::format("{}: unknown rule '{}'; rules: {}{}", option, id, fmt::join(rule_ids(), ", "),
                     did_you_mean(id, rule_ids()));
}

int run(const AnalyzeArgs& args) {
  std::vector<const findings::RuleSpec*> rules;
  for (const std::string& id : args.rules) {
    if (const auto error = unknown_rule("--rules", id)) return usage_error(*error);
    if (std::find(rules.begin(), rules.end(), findings::find_rule(id)) == rules.end())
      rules.push_back(findings::find_rule(id));
  }
  if (rules.empty())
    for (const findings::RuleSpec* rule : findings::all_rules()) rules.push_back(rule);
  std::vector<std::string> gated;
  for (const std::string& id : args.fail_on) {
    if (id == "all") {
      for (const findings::RuleSpec* rule : rules) gated.emplace_back(rule->id);
      continue;
    }
    if (const auto error = unknown_rule("--fail-on", id)) return usage_error(*error);
    if (std::find(rules.begin(), rules.end(), findings::find_rule(id)) == rules.end())
      return usage_error(
          fmt::format("--fail-on {}: the rule is not among --rules, so it never runs", id));
    gated.push_back(id);
  }
  const std::optional<double> min_share =
      findings::parse_threshold(args.min_share, findings::ThresholdUnit::kShare);
  if (!min_share)
    return usage_error(fmt::format("--min-share '{}': a share, as 1% or 0.01", args.min_share));
  findings::Thresholds thresholds;
  for (const std::string& assignment : args.thresholds)
    if (const auto error = thresholds.set(assignment)) return usage_error("--threshold " + *error);

  Inputs inputs = expand_inputs(args.files);
  if (!report_input_errors(inputs.errors)) return kExitBadInput;
  ProgressScope progress(inputs.files, 1, args.quiet);
  findings::AnalyzedFiles loaded = findings::analyze_files(
      inputs.files, rules, std::move(thresholds),
      findings::Scope{args.ranges, args.steps, args.data_ranges}, args.jobs);
  progress.finish();
  print_in_memory_notes(loaded.in_memory);
  if (!check_files(loaded.infos)) return kExitBadInput;
  if (!args.ranges.empty() && !loaded.range_matched) {
    fmt::print(stderr, "gpuprof: error: --range {} matches no range: nothing to analyze\n",
               quoted_list(args.ranges));
    return kExitBadInput;
  }
  findings::Analysis& analysis = loaded.analysis;
  findings::hide_below(analysis, *min_share);
  analysis.full_names = args.full_names;
  if (args.format == "json")
    fmt::print("{}", findings::render_json(analysis));
  else if (args.format == "md")
    fmt::print("{}", findings::render_markdown(analysis));
  else
    fmt::print("{}", findings::render_text(analysis));
  if (args.format != "json") print_table_notes(stdout, loaded.infos);
  std::fflush(stdout);
  std::vector<std::string> fired;
  for (const std::string& id : gated)
    if (analysis.fired(id) && std::find(fired.begin(), fired.end(), id) == fired.end())
      fired.push_back(id);
  if (fired.empty()) return kExitOk;
  fmt::print(stderr, "gpuprof: --fail-on: {} fired\n", fmt::join(fired, ", "));
  return kExitFired;
}

std::string rules_help() {
  std::string out = "Run only these rules, comma-separated (default: all). Rules:";
  for (const findings::RuleSpec* rule : findings::all_rules())
    out += fmt::format(" {}: {};", rule->id, rule->description);
  out.back() = '.';
  return out;
}

std::string thresholds_help() {
  std::string out =
      "Set a rule's threshold, e.g. small-memcpy.min_count=20 (repeatable). "
      "Thresholds and defaults:";
  for (const findings::RuleSpec* rule : findings::all_rules())
    for (const findings::ThresholdSpec& spec : rule->thresholds)
      out += fmt::format(" {}.{}={} ({});", rule->id, spec.key,
                         findings::format_threshold(spec.value, spec.unit), spec.meaning);
  out.back() = '.';
  return out;
}

}  // namespace

void add_analyze_command(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      "Find known performance mistakes (idle GPU, launch-bound loops, syncs, slow copies) with "
      "the evidence and the NVTX range they happened in");
  cmd->add_option("files", args->files,
                  "Sidecar files and directories of them (ranks, processes: analyzed together)")
      ->required()
      ->type_name("FILE|DIR");
  cmd->add_option("--format", args->format,
                  "table: text for the terminal; md: GitHub Markdown; json: schema gprof.analyze "
                  "version 1 (docs/analyze.md)")
      ->type_name("FORMAT")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "md", "json"}));
  cmd->add_option("--rules", args->rules, rules_help())
      ->type_name("LIST")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--fail-on", args->fail_on,
                  "Exit 1 when one of these rules (comma-separated, or all) finds something; "
                  "0 when none does")
      ->type_name("RULE[,RULE...]")
      ->delimiter(',')
      ->allow_extra_args(false);
  cmd->add_option("--range", args->ranges,
                  "Only what happened inside NVTX ranges named NAME ('*' matches any run of "
                  "characters): calls made inside them on their thread, the GPU work those "
                  "issued, and the GPU's idle time within them. Repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--step", args->steps,
                  "NVTX ranges that are training steps (glob); default: ProfilerStep*, else "
                  "step*. Repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--data-range", args->data_ranges,
                  "NVTX ranges in which the loop waits for its next batch (glob), for the "
                  "straggler rule; default: *DataLoader*, *dataloader*, *data_loader*, "
                  "*data_loading*, *load_batch*. Repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--threshold", args->thresholds, thresholds_help())
      ->type_name("RULE.KEY=VALUE")
      ->allow_extra_args(false);
  cmd->add_option("--min-share", args->min_share,
                  "Show only findings that cost at least this share of the window (30% or 0.3); "
                  "the others are named in one line, and are no --fail-on. 0: all")
      ->type_name("SHARE")
      ->capture_default_str();
  cmd->add_flag("--full-names", args->full_names,
                "Kernels by their whole demangled name; otherwise a name longer than 55 characters "
                "is shortened, as report does (JSON always gives it whole)");
  cmd->add_option("-j,--jobs", args->jobs,
                  "Read up to N files at once, each on its own thread (0: one per hardware "
                  "thread, at most 4); the findings are the same for any N. Each file read at "
                  "once takes memory of its own (30 to 55 MB)")
      ->type_name("N")
      ->capture_default_str()
      ->check(whole_number(0));
  add_quiet_flag(*cmd, args->quiet);
  cmd->footer(
      "Exit status: 0 done, and no --fail-on rule found anything (at --min-share or above); 1 a "
      "--fail-on rule found something; 2 bad usage (an unknown option, rule or threshold) or input "
      "that cannot be "
      "read (a missing or corrupt sidecar file, a directory without sidecar files, a --range "
      "that matches no range), or output that could not be written.");
  cmd->callback([args, &exit_status] { exit_status = run(*args); });
}

}  // namespace gprof::cli
