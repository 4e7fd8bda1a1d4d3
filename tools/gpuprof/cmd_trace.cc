// gpuprof trace FILE|DIR... -o OUT.json[.gz]: the files as one Chrome
// trace-event document for Perfetto and Chrome DevTools (docs/trace.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tools/analysis/render/duration.h"
#include "tools/analysis/render/format.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/jobs_option.h"
#include "tools/gpuprof/cli/progress.h"
#include "tools/gpuprof/commands.h"
#include "tools/trace/output_file.h"
#include "tools/trace/time_window.h"
#include "tools/trace/trace_writer.h"

namespace gprof::cli {
namespace {

struct TraceArgs {
  std::vector<std::string> files;
  std::string output;
  std::string window;
  std::vector<std::string> ranges;
  std::vector<std::string> steps;
  std::string busy_bucket = "1ms";
  unsigned jobs = 0;  // 0: one per core
  bool quiet = false;
};

// A cut that keeps nothing is most often a typo or a window past the run's
// end: say so, with the span the window's times are measured in.
std::string empty_cut_warning(const TraceArgs& args, const trace::TraceSummary& summary) {
  std::vector<std::string> cuts;
  if (!args.window.empty()) cuts.push_back("--window " + args.window);
  if (!args.ranges.empty()) cuts.push_back("--range " + quoted_list(args.ranges));
  std::string out = fmt::format("{} kept no event: the trace holds only process and track names",
                                fmt::join(cuts, " and "));
  if (summary.span)
    out += fmt::format("; the records span {}:{} from the trace's start",
                       analysis::format_time(static_cast<double>(summary.span->first)),
                       analysis::format_time(static_cast<double>(summary.span->second)));
  return out;
}

// Why `output` must not be written: it is one of the inputs, or another
// sidecar file (a glob such as -o gprof-*.gprof expands to recordings); a
// trace written there would replace a recording that cannot be made again.
std::optional<std::string> output_clobbers(const std::string& output,
                                           const std::vector<std::string>& inputs) {
  if (output == "-") return std::nullopt;
  std::error_code ec;
  if (!std::filesystem::exists(output, ec)) return std::nullopt;
  for (const std::string& input : inputs)
    if (std::filesystem::equivalent(output, input, ec))
      return fmt::format("-o {} is one of the inputs: the trace would replace it", output);
  if (is_sidecar_file(output))
    return fmt::format("-o {} is a sidecar file: the trace would replace that recording", output);
  return std::nullopt;
}

// GPROF_TRACE_SORT_MEMORY: bytes (K, M, G: binary multiples) the sorting of
// a file's events keeps in memory before it spills to temporary files.
// nullopt: set but not a size.
std::optional<size_t> sort_memory() {
  const char* text = std::getenv("GPROF_TRACE_SORT_MEMORY");
  if (text == nullptr || *text == '\0') return trace::kDefaultSortMemory;
  std::string_view t(text);
  size_t scale = 1;
  switch (t.back()) {
    case 'K':
    case 'k':
      scale = size_t{1} << 10;
      break;
    case 'M':
    case 'm':
      scale = size_t{1} << 20;
      break;
    case 'G':
    case 'g':
      scale = size_t{1} << 30;
      break;
    default:
      break;
  }
  if (scale != 1) t.remove_suffix(1);
  size_t n = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (ec != std::errc() || end != t.data() + t.size() || n == 0 || n > (size_t{1} << 40) / scale)
    return std::nullopt;
  return n * scale;
}

int run(const TraceArgs& args) {
  trace::TraceOptions options;
  if (const std::optional<size_t> bytes = sort_memory()) {
    options.sort_memory = *bytes;
  } else {
    fmt::print(stderr,
               "gpuprof: error: GPROF_TRACE_SORT_MEMORY={} is not a size (bytes, or with K, M "
               "or G: 64M)\n",
               std::getenv("GPROF_TRACE_SORT_MEMORY"));
    return kExitUsage;
  }
  options.cut.ranges = args.ranges;
  options.steps = args.steps;
  if (!args.window.empty()) options.cut.window = trace::parse_window(args.window).window;
  options.busy_bucket_ns = static_cast<uint64_t>(*analysis::parse_duration_ns(args.busy_bucket));

  Inputs inputs = expand_inputs(args.files);
  if (!report_input_errors(inputs.errors)) return kExitFileError;
  if (const std::optional<std::string> error = output_clobbers(args.output, inputs.files)) {
    fmt::print(stderr, "gpuprof: error: {}\n", *error);
    return kExitUsage;
  }
  std::string error;
  const unsigned jobs =
      args.jobs != 0 ? args.jobs : default_trace_jobs(std::thread::hardware_concurrency());
  // The caller's thread sorts and merges; the others decode and encode.
  options.helpers = jobs - 1;
  std::unique_ptr<trace::OutputFile> out = trace::OutputFile::open(args.output, error, jobs);
  if (!out) {
    fmt::print(stderr, "gpuprof: error: {}\n", error);
    return kExitFileError;
  }
  trace::TraceSummary summary;
  // Several files are read twice: their clocks and origin first.
  ProgressScope progress(inputs.files, inputs.files.size() > 1 ? 2 : 1, args.quiet,
                         args.output == "-", "events");
  try {
    summary = trace::write_trace(inputs.files, options, *out);
  } catch (const std::exception& e) {  // the external sort's temporary file (spill_sorter.h)
    fmt::print(stderr, "gpuprof: error: {}\n", e.what());
    return kExitFileError;
  }
  progress.finish();
  for (const std::string& warning : summary.warnings)
    fmt::print(stderr, "gpuprof: warning: {}\n", warning);
  // Unreadable input: no trace at all (the temporary file goes with `out`).
  if (!check_files(summary.files)) return kExitFileError;
  if (options.cut.cuts() && summary.kept == 0)
    fmt::print(stderr, "gpuprof: warning: {}\n", empty_cut_warning(args, summary));
  if (!out->commit(error)) {
    fmt::print(stderr, "gpuprof: error: {}\n", error);
    return kExitFileError;
  }
  if (args.output != "-")
    fmt::print(stderr, "gpuprof: wrote {} ({} events from {} file{})\n", args.output,
               summary.events, summary.files.size(), summary.files.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace

void add_trace_command(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<TraceArgs>();
  CLI::App* cmd = app.add_subcommand(
      "trace",
      "Write a Chrome trace-event JSON timeline (ui.perfetto.dev, or Chrome DevTools: "
      "Performance panel, Load profile)");
  cmd->add_option("files", args->files,
                  "Sidecar files and directories of them: each process side by side on one "
                  "time axis")
      ->required()
      ->type_name("FILE|DIR");
  cmd->add_option("-o,--output", args->output,
                  "Where to write: OUT.json, OUT.json.gz (gzip), or - for stdout")
      ->required()
      ->type_name("OUT")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            return value.empty() ? "an empty path names no file" : "";
          },
          ""));
  cmd->add_option("--window", args->window,
                  "Only events overlapping START:END, in the times the trace shows (ts), with "
                  "a unit (ns, us, ms, s): 1.5s:2s, 100ms:, :250ms")
      ->type_name("START:END")
      ->check(
          CLI::Validator([](std::string& value) { return trace::parse_window(value).error; }, ""));
  cmd->add_option("--range", args->ranges,
                  "Only what lies inside NVTX ranges named NAME ('*' matches any run of "
                  "characters), with the GPU work it issued. Repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--step", args->steps,
                  "NVTX ranges that are training steps (glob; default: ProfilerStep*, else "
                  "step*): each gets a ProfilerStep#N annotation, as kineto writes them, so that "
                  "Holistic Trace Analysis finds the iterations. Repeatable")
      ->type_name("NAME")
      ->allow_extra_args(false);
  cmd->add_option("--busy-bucket", args->busy_bucket,
                  "Time step of the GPU busy counter, with a unit")
      ->type_name("DURATION")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            // At most 10^6 s (11.6 days): bucket arithmetic stays far inside 64 bits.
            const std::optional<int64_t> ns = analysis::parse_duration_ns(value);
            if (ns && *ns > 0 && *ns <= 1'000'000'000'000'000) return {};
            return "'" + value +
                   "' is not a positive time with a unit (ns, us, ms, s), at most 1000000s";
          },
          ""));
  cmd->add_option("--jobs", args->jobs,
                  "Threads that decode, sort, write the JSON and compress a .gz output "
                  "(default: one per core, at most 4: past that the first thread is the "
                  "limit); the bytes are the same whatever the number")
      ->type_name("N")
      ->check(CLI::Range(1u, 1024u));
  add_quiet_flag(*cmd, args->quiet);
  cmd->footer(
      "Exit status: 0 written; 1 an input could not be read or the output could not be "
      "written (nothing is left behind); 2 bad usage, or OUT is one of the inputs or an existing "
      "sidecar file.");
  cmd->callback([args, &exit_status] { exit_status = run(*args); });
}

}  // namespace gprof::cli
