// gpuprof record [OPTIONS] -- CMD ARGS...: runs CMD under libgprof.so (the
// preload and injection variables set, docs/architecture.md §3.1), passes signals on,
// exits as CMD did, then says which files were written and prints the top
// rows of their report and the top findings of `gpuprof analyze`.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/ops_files.h"
#include "tools/analysis/read/profile.h"
#include "tools/analysis/render/range_text.h"
#include "tools/analysis/render/table.h"
#include "tools/findings/load.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/record/child_process.h"
#include "tools/gpuprof/record/library_path.h"
#include "tools/gpuprof/record/output_files.h"

namespace gprof::cli {
namespace {

constexpr const char* kDefaultPattern = "gprof-%p.gprof";
constexpr size_t kSummaryRows = 10;
constexpr size_t kSummaryFindings = 3;
// The shim's limits (collector/process/config.cc): longer values are ignored there.
constexpr size_t kMaxCaptureName = 127;
constexpr uint64_t kMaxSteps = 100'000'000;
constexpr uint64_t kMaxSeconds = 1'000'000'000;

struct RecordOptions {
  std::string output;  // empty: $GPROF_OUTPUT, else kDefaultPattern
  std::string capture;
  std::string delay;
  std::string duration;
  std::optional<uint64_t> skip_steps;
  std::optional<uint64_t> steps;
  bool follow_children = false;
  bool no_children = false;
  std::vector<std::string> command;
};

// The shim's GPROF_CAPTURE grammar (collector/process/config.cc, parse_capture).
std::string check_capture(const std::string& value) {
  if (value == "all" || value == "cudaProfilerApi" || value == "cudaprofilerapi") return {};
  if (value.starts_with("nvtx:")) {
    const std::string_view spec = std::string_view(value).substr(5);
    const size_t at = spec.find('@');
    const std::string_view name = spec.substr(0, at);
    const std::string_view domain = at == spec.npos ? std::string_view() : spec.substr(at + 1);
    if (!name.empty() && name.size() <= kMaxCaptureName && domain.size() <= kMaxCaptureName)
      return {};
  }
  return fmt::format(
      "'{}' is not a capture window: all, cudaProfilerApi or nvtx:NAME[@DOMAIN] (a trailing * "
      "in NAME matches a prefix)",
      value);
}

// Seconds as the shim reads them (collector/process/config.cc, parse_seconds_as_ms):
// digits, optionally a fraction; no sign, no exponent.
std::string check_seconds(const std::string& value) {
  const size_t dot = value.find('.');
  const std::string_view whole = std::string_view(value).substr(0, dot);
  const std::string_view fraction =
      dot == std::string::npos ? std::string_view() : std::string_view(value).substr(dot + 1);
  auto digits = [](std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || !digits(whole) || !digits(fraction) ||
      (whole.size() > 10 || std::strtoull(std::string(whole).c_str(), nullptr, 10) > kMaxSeconds))
    return fmt::format("'{}' is not a number of seconds (e.g. 10 or 0.5)", value);
  return {};
}

CLI::Validator validator(std::string (*check)(const std::string&)) {
  return CLI::Validator([check](std::string& value) { return check(value); }, "");
}

std::string current_directory() {
  char cwd[PATH_MAX];
  return getcwd(cwd, sizeof cwd) ? std::string(cwd) : std::string();
}

bool same_file(const char* a, const std::string& b) {
  char resolved[PATH_MAX];
  return realpath(a, resolved) != nullptr && b == resolved;
}

// The parsed command line, or a usage error. CLI11's prefix_command puts the
// "--" (and anything it did not recognize before it) into remaining(), which
// is how a command given without "--" is told apart.
void check_usage(const RecordOptions& options, const std::vector<std::string>& remaining) {
  // `-o -- CMD` took the separator as the pattern.
  if (options.output == "--") throw CLI::ValidationError("-o", "needs a PATTERN before '--'");
  std::vector<std::string> unknown = remaining;
  const bool separator = !unknown.empty() && unknown.back() == "--";
  if (separator) unknown.pop_back();
  if (!unknown.empty())
    throw CLI::ValidationError("record", fmt::format("unknown option '{}' (options of the "
                                                     "command go after '--')",
                                                     unknown.front()));
  if (!separator)
    throw CLI::ValidationError(
        "record", options.command.empty()
                      ? "no command to run: gpuprof record [OPTIONS] -- CMD [ARGS...]"
                      : fmt::format("put '--' before the command: gpuprof record [OPTIONS] -- "
                                    "{} ...",
                                    options.command.front()));
  if (options.command.empty()) throw CLI::ValidationError("record", "no command after '--'");
  if (std::string error = check_output_pattern(options.output); !error.empty())
    throw CLI::ValidationError("-o", error);
}

// The child's environment: the preload, the output pattern, the capture
// window, the injection hooks and the child policy.
ChildCommand build_command(const RecordOptions& options, const std::string& library) {
  ChildCommand child;
  child.argv = options.command;
  auto set = [&](std::string name, std::optional<std::string> value) {
    child.environment.emplace_back(std::move(name), std::move(value));
  };
  const char* preload = std::getenv("LD_PRELOAD");
  set("LD_PRELOAD", preload && *preload ? library + ':' + preload : library);
  set("GPROF_OUTPUT", absolute_pattern(options.output, current_directory()));
  if (!options.capture.empty()) set("GPROF_CAPTURE", options.capture);
  if (!options.delay.empty()) set("GPROF_DELAY", options.delay);
  if (!options.duration.empty()) set("GPROF_DURATION", options.duration);
  if (options.skip_steps) set("GPROF_SKIP_STEPS", std::to_string(*options.skip_steps));
  if (options.steps) set("GPROF_STEPS", std::to_string(*options.steps));

  // The driver and NVTX each load one tool; one that is already named is
  // another tool's (nsys, a sanitizer) and is left alone, as the shim does.
  std::vector<std::string> owned;
  const char* cupti = std::getenv("GPROF_CUPTI");
  const bool want_cupti = !(cupti && std::string_view(cupti) == "0");
  for (const auto& [name, loses] : {std::pair{"CUDA_INJECTION64_PATH", "GPU activity"},
                                    std::pair{"NVTX_INJECTION64_PATH", "NVTX ranges"}}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') {
      // GPROF_CUPTI=0 promises to leave the driver's hook alone.
      if (want_cupti || std::string_view(name) != "CUDA_INJECTION64_PATH") set(name, library);
    } else if (!same_file(value, library)) {
      owned.push_back(fmt::format("{}={} (so no {})", name, value, loses));
    }
  }
  if (!owned.empty())
    fmt::print(stderr, "gpuprof: note: left to another tool: {}\n", fmt::join(owned, ", "));

  if (options.no_children) {
    // The shim records only in the process whose pid this is, and a fork()ed
    // child of it stops recording.
    child.pid_variable = "GPROF_ONLY_PID";
    set("GPROF_FORK", "stop");
  } else {
    // Every process writes its own file (exec'd children inherit the preload).
    set("GPROF_ONLY_PID", std::nullopt);  // from an enclosing --no-children run
    set("GPROF_FORK", "follow");
  }
  return child;
}

// The top rows of the ops view (what `gpuprof report` prints first), on
// stderr so that the program's stdout stays its own. Memory columns and
// throughput are left to `gpuprof report`: this is a glance. Read as
// report reads them (a stream per file, files on every core), so that the
// summary of an hour's run costs what `gpuprof report` costs, not memory in
// proportion to the run.
void print_summary(const std::vector<std::string>& files) {
  analysis::OpsFiles ops = analysis::aggregate_ops_files(files, analysis::OpsFilesOptions{});
  const std::vector<analysis::FileInfo>& infos = ops.files;
  check_files(infos);
  print_in_memory_notes(ops.in_memory);
  std::vector<analysis::Row> rows = ops.rows.finish();
  const bool gpu_time = std::any_of(rows.begin(), rows.end(),
                                    [](const analysis::Row& r) { return r.device_total_ns > 0; });
  analysis::TableOptions table;
  table.sort = gpu_time ? analysis::SortKey::kDeviceTotal : analysis::SortKey::kCpuTotal;
  table.row_limit = kSummaryRows;
  const size_t row_count = rows.size();
  const std::string text = analysis::render_table(std::move(rows), table);
  if (text.empty()) {
    fmt::print(stderr, "No records.\n");
  } else {
    fmt::print(stderr, "Top {} of {} rows by {}:\n{}", std::min(kSummaryRows, row_count), row_count,
               gpu_time ? "CUDA total" : "CPU total", text);
  }
  analysis::RangeCounts ranges;
  for (const analysis::FileInfo& file : infos) ranges += file.ranges;
  if (const std::string problems = analysis::describe_range_problems(ranges); !problems.empty())
    fmt::print(stderr, "Ranges: {}\n", problems);
  print_table_notes(stderr, infos);
  constexpr size_t kListed = 4;  // more paths than that make a poor hint
  const std::string listed =
      files.size() <= kListed ? fmt::format("{}", fmt::join(files, " ")) : "FILE...";
  fmt::print(stderr, "The whole table: gpuprof report {}\n", listed);
  // The findings of `gpuprof analyze`, most costly first: a glance too.
  // A pass of its own (analyze_files: a stream, in bounded memory).
  findings::Analysis analysis =
      findings::analyze_files_with_defaults(files, findings::Scope{}).analysis;
  findings::hide_below(analysis, findings::kDefaultMinShare);
  if (analysis.findings.empty()) return;
  fmt::print(stderr, "Findings ({} of {}):\n", std::min(kSummaryFindings, analysis.findings.size()),
             analysis.findings.size());
  for (size_t i = 0; i < analysis.findings.size() && i < kSummaryFindings; ++i)
    fmt::print(stderr, "  {}\n", findings::brief_text(analysis.findings[i]));
  fmt::print(stderr, "Evidence and suggestions: gpuprof analyze {}\n", listed);
}

void report_files(const std::vector<std::string>& files, const std::string& pattern) {
  if (files.empty()) {
    fmt::print(stderr,
               "gpuprof: no profile was written to {} (the program made no CUDA or NVTX calls, "
               "or gprof could not create the file: see its 'gprof:' warnings)\n",
               pattern);
    return;
  }
  fmt::print(stderr, "gpuprof: wrote {} file{}:\n", files.size(), files.size() == 1 ? "" : "s");
  for (const std::string& file : files) fmt::print(stderr, "  {}\n", file);
  std::fflush(stderr);
  try {
    print_summary(files);
  } catch (const std::exception& e) {
    // The command's exit status matters more than the summary's.
    fmt::print(stderr, "gpuprof: warning: no summary: {}\n", e.what());
  }
}

// The pattern's directories, up to the first one named by a directive (%h,
// %r...: known only in the process), so that `-o runs/%p.gprof` records into
// runs/ rather than nowhere. False, with an error printed, when they cannot
// be made.
bool make_output_directories(const std::string& pattern) {
  const size_t slash = pattern.rfind('/');
  if (slash == std::string::npos || slash == 0) return true;
  // The directory part with %% read as '%', cut before the first directory
  // that holds another directive.
  std::string directory;
  size_t last_slash = 0;
  for (size_t i = 0; i < slash; ++i) {
    if (pattern[i] == '%' && i + 1 < slash && pattern[i + 1] == '%') {
      directory += '%';
      ++i;
      continue;
    }
    if (pattern[i] == '%') {
      if (last_slash == 0) return true;
      directory.resize(last_slash);
      break;
    }
    if (pattern[i] == '/') last_slash = directory.size();
    directory += pattern[i];
  }
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (!error) return true;
  fmt::print(stderr, "gpuprof: error: cannot create the output directory {}: {}\n", directory,
             error.message());
  return false;
}

int run_record(RecordOptions& options) {
  const LibraryLookup lookup = find_libgprof();
  if (!lookup.path) {
    fmt::print(stderr, "gpuprof: error: cannot find libgprof.so: {}\n",
               lookup.error.empty() ? fmt::format("looked at {}; set GPROF_LIB to its path",
                                                  fmt::join(lookup.tried, ", "))
                                    : lookup.error);
    return kExitUsage;
  }
  if (!make_output_directories(options.output)) return kExitFileError;
  const ChildCommand child = build_command(options, *lookup.path);
  const FileTimes before = match_output_files(options.output);
  const ChildResult result = run_child(child);
  if (result.exec_failed) {
    fmt::print(stderr, "gpuprof: error: {}: {}\n", options.command.front(),
               result.error == ENOENT ? "command not found" : std::strerror(result.error));
    return result.exit_code;
  }
  if (result.error != 0) {
    fmt::print(stderr, "gpuprof: error: cannot start {}: {}\n", options.command.front(),
               std::strerror(result.error));
    return kExitFileError;
  }
  if (result.signal != 0)
    fmt::print(stderr, "gpuprof: {} was killed by signal {} ({})\n", options.command.front(),
               result.signal, strsignal(result.signal));
  report_files(written_between(before, match_output_files(options.output)), options.output);
  return result.exit_code;
}

}  // namespace

void add_record_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<RecordOptions>();
  CLI::App* cmd = app.add_subcommand(
      "record",
      "Run a command under libgprof.so and summarize what it recorded: gpuprof record "
      "[OPTIONS] -- CMD [ARGS...]");
  cmd->add_option("-o,--output", options->output,
                  fmt::format("File name pattern of each process's sidecar file: %p pid, %h host, "
                              "%r rank, %t start time, %q{{VAR}} a variable, %% '%'. Default: "
                              "$GPROF_OUTPUT, else {}",
                              kDefaultPattern))
      ->type_name("PATTERN");
  cmd->add_option("--capture", options->capture,
                  "What to record: all (default), cudaProfilerApi (between cudaProfilerStart and "
                  "cudaProfilerStop), nvtx:NAME[@DOMAIN] (inside matching NVTX ranges)")
      ->type_name("SPEC")
      ->check(validator(check_capture));
  cmd->add_option("--delay", options->delay, "Start recording S seconds after the program starts")
      ->type_name("S")
      ->check(validator(check_seconds));
  cmd->add_option("--duration", options->duration, "Record for S seconds")
      ->type_name("S")
      ->check(validator(check_seconds));
  cmd->add_option("--skip-steps", options->skip_steps,
                  "Skip the first N training steps (NVTX ranges ProfilerStep*, step*)")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{0}, kMaxSteps).description(""));
  cmd->add_option("--steps", options->steps, "Then record N steps")
      ->type_name("N")
      ->check(CLI::Range(uint64_t{0}, kMaxSteps).description(""));
  CLI::Option* follow = cmd->add_flag("--follow-children", options->follow_children,
                                      "Each process the command starts writes its own file "
                                      "(default)");
  cmd->add_flag("--no-children", options->no_children,
                "Record only the command's own process, not the processes it starts")
      ->excludes(follow);
  cmd->add_option("CMD", options->command, "After '--': the command to run and its arguments")
      ->type_name("");
  cmd->prefix_command();
  cmd->footer(
      "Exit status: the command's own; 128 + N when signal N killed it; 127 when it was not "
      "found (126 when it could not be run); 1 gpuprof could not start it or create the output "
      "directory; 2 bad usage or libgprof.so not found.");
  cmd->callback([options, cmd, &exit_status] {
    if (options->output.empty()) {
      const char* env = std::getenv("GPROF_OUTPUT");
      options->output = env && *env ? env : kDefaultPattern;
    }
    check_usage(*options, cmd->remaining());
    exit_status = run_record(*options);
  });
}

}  // namespace gprof::cli
