// gpuprof info FILE...: what a sidecar file says about its process, what it
// holds, what was lost and whether it is whole.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/analysis/aggregate/ops_stream.h"
#include "tools/analysis/aggregate/throughput.h"
#include "tools/analysis/read/cuda_errors.h"
#include "tools/analysis/read/in_memory_asked.h"
#include "tools/analysis/read/parallel_files.h"
#include "tools/analysis/read/profile.h"
#include "tools/analysis/read/visitor_chain.h"
#include "tools/analysis/render/footer_text.h"
#include "tools/analysis/render/format.h"
#include "tools/analysis/render/range_text.h"
#include "tools/analysis/render/throughput_text.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/progress.h"
#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/info/call_counts.h"
#include "tools/gpuprof/info/file_state.h"
#include "tools/gpuprof/info/info_gpu.h"
#include "tools/gpuprof/info/info_text.h"

namespace gprof::cli {
namespace {

struct InfoOptions {
  std::vector<std::string> files;
  bool quiet = false;
};

// Single-quotes an argument that the shell would split or expand.
std::string shell_quote(const std::string& arg) {
  const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_-./=:,+@%").find(c) != std::string_view::npos;
  });
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

// "+ 1714566896.123456789 s", "- 0.000001000 s".
std::string signed_seconds(int64_t ns) {
  const uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  return fmt::format("{} {}.{:09} s", ns < 0 ? '-' : '+', magnitude / 1000000000u,
                     magnitude % 1000000000u);
}

void print_header(const pb::FileHeader& h) {
  field("Format version", std::to_string(h.format_version()));
  field("gprof version", h.gprof_version().empty() ? "?" : h.gprof_version());
  field("Process", fmt::format("pid {}, ppid {}", h.pid(), h.ppid()));
  field("Host", h.host());
  std::string argv;
  for (const std::string& arg : h.argv()) {
    if (!argv.empty()) argv += ' ';
    argv += shell_quote(arg);
  }
  field("Command line", argv);
  if (!h.exe().empty()) field("Executable", h.exe());
  field("Start time", h.start_wall_ns() ? analysis::format_iso8601_utc(h.start_wall_ns()) : "?");
  if (h.has_clock()) {
    const pb::ClockDescription& c = h.clock();
    std::string clock = c.name().empty() ? "?" : c.name();
    if (c.offset_to_wall_ns() != 0)
      clock += ", wall time = clock " + signed_seconds(c.offset_to_wall_ns());
    if (c.cupti_aligned())
      clock += ", CUPTI timestamps on this clock";
    else if (c.cupti_offset_ns() != 0)
      clock += ", CUPTI timestamps = clock " + signed_seconds(c.cupti_offset_ns());
    field("Clock", clock);
  }
  const auto version = [](int32_t v) {
    return v > 0 ? fmt::format("{} ({})", analysis::format_cuda_version(v), v) : "none";
  };
  field("CUDA runtime", version(h.cuda_runtime_version()));
  field("CUDA driver", version(h.cuda_driver_version()));
  field("Rank", h.rank().empty() ? "-" : h.rank());
  for (const pb::Device& d : h.devices()) field("Device", analysis::describe_device(d));
  if (h.config_size() == 0) field("Config", "(defaults)");
  for (const pb::ConfigEntry& e : h.config()) field("Config", e.key() + "=" + e.value());
}

// What newer footers say besides losses; files written before have none of it.
void print_footer_extras(const pb::Footer& footer) {
  const analysis::HoldTotals holds = analysis::footer_holds(footer);
  if (holds.count != 0)
    field("Held at memory cap", analysis::describe_holds(holds) + " (GPROF_ON_FULL=wait)");
  const std::string queue = analysis::describe_queue_memory(footer);
  if (!queue.empty()) field("Queue memory", queue);
  if (footer.has_timestamps())
    field("Timestamps", analysis::describe_timestamps(footer.timestamps()));
  if (footer.output_reopens() != 0)
    field("Output reopened",
          fmt::format("{} (the program closed or replaced the file's descriptor; gprof reopened "
                      "the same file and lost nothing)",
                      footer.output_reopens() == 1
                          ? std::string("once")
                          : fmt::format("{} times", footer.output_reopens())));
}

void print_file(const analysis::FileInfo& file, const CallCounts& counts,
                const analysis::FileThroughput& throughput) {
  const ReadStatus& s = file.status;
  fmt::print("== {}\n", file.path);
  field("Integrity", integrity_text(file));
  field("Frames", fmt::format("{} good, {} bad; {} bytes", s.frames, s.bad_frames, s.file_bytes));
  if (file.header)
    print_header(*file.header);
  else
    field("Header", "missing (the header frame was lost)");
  if (file.footer && file.footer->end_wall_ns() != 0)
    field("End time", analysis::format_iso8601_utc(file.footer->end_wall_ns()));

  std::string records = plural(s.records, "API call", "API calls") + " on " +
                        plural(counts.threads(), "thread", "threads") + ", " +
                        plural(counts.launches(), "kernel launch", "kernel launches");
  if (counts.graph_launches())
    records += ", " + plural(counts.graph_launches(), "graph launch", "graph launches");
  if (file.footer && file.footer->api_records() != s.records)
    records += fmt::format("; the footer counts {}", file.footer->api_records());
  if (s.skipped_records) records += fmt::format("; {} skipped (unknown API)", s.skipped_records);
  field("Records", records);
  // Which runtime the hooked calls went to: a process may hold cudart 12 and 13.
  std::string runtimes;
  for (const auto& [major, n] : counts.runtimes()) {
    if (major == 0) continue;
    if (!runtimes.empty()) runtimes += ", ";
    runtimes += fmt::format("libcudart.so.{}: {}", major, plural(n, "call", "calls"));
  }
  if (const auto unknown = counts.runtimes().find(0);
      !runtimes.empty() && unknown != counts.runtimes().end())
    runtimes += fmt::format(", {} seen by CUPTI callbacks only", unknown->second);
  if (!runtimes.empty()) field("Runtimes", runtimes);
  field("GPU records", describe_gpu_records(file));
  field("Ranges", analysis::describe_ranges(file.ranges));
  // Steps, GPU utilization and time in synchronize calls, as under the table.
  if (!throughput.empty())
    for (const auto& [label, value] : analysis::throughput_fields(throughput, std::nullopt, {}))
      field(label, value);
  const auto strings = [&](int kind) { return counts.strings(kind); };
  field("Strings", fmt::format("{} kernel names, {} thread names, {} NVTX strings, {} other",
                               strings(pb::StringEntry::KERNEL), strings(pb::StringEntry::THREAD),
                               strings(pb::StringEntry::NVTX) + strings(pb::StringEntry::DOMAIN) +
                                   strings(pb::StringEntry::CATEGORY),
                               strings(pb::StringEntry::OTHER)));

  print_cupti(file);

  // gprof's own losses, then CUPTI's, labelled; then the counters that lose no record.
  const analysis::LossList counted = analysis::total_losses({file});
  const std::string losses = analysis::format_losses(counted);
  if (!file.footer)
    field("Losses", "unknown (no footer)");
  else
    field("Losses", losses.empty() ? "none" : losses);
  const std::string events = analysis::format_loss_events(counted);
  if (!events.empty()) field("Also counted", events + " (no record lost)");
  if (file.footer && file.footer->flush_timed_out())
    field("Exit flush", "timed out; the last records may be missing");
  if (file.footer) print_footer_extras(*file.footer);

  const std::map<std::string_view, uint64_t> per_api = counts.per_api();
  if (!per_api.empty()) {
    std::vector<std::pair<std::string_view, uint64_t>> calls(per_api.begin(), per_api.end());
    std::stable_sort(calls.begin(), calls.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    size_t width = 0;
    for (const auto& [api, n] : calls) width = std::max(width, api.size());
    fmt::print("Calls per API:\n");
    for (const auto& [api, n] : calls) fmt::print("  {:<{}}  {:>10}\n", api, width, n);
  }
  const auto failures = counts.failures();
  if (!failures.empty()) {
    size_t width = 0;
    for (const auto& [key, n] : failures) width = std::max(width, key.first.size());
    fmt::print("Failed calls:\n");
    for (const auto& [key, n] : failures) {
      fmt::print("  {:<{}}  {:>10}  {}\n", key.first, width, n,
                 analysis::describe_cuda_error(key.second));
    }
  }
}

// One file through report's stream (aggregate/ops_stream.h), the counts
// beside it in the same read: memory follows what is open, not the file.
// A file the stream declines is read in memory, with report's note.
struct DescribedFile {
  analysis::FileInfo info;
  analysis::FileThroughput throughput;
};

DescribedFile describe(const std::string& path, CallCounts& counts) {
  if (!analysis::in_memory_asked()) {
    analysis::KeyAverages rows;
    std::string why;
    std::optional<analysis::StreamedFile> streamed =
        analysis::stream_ops_file(0, path, analysis::OpsOptions{}, std::vector<std::string>{}, rows,
                                  why, analysis::decoders_per_file(0, 1), nullptr, &counts);
    if (streamed) return {std::move(streamed->info), std::move(*streamed->throughput)};
    counts.clear();
    print_in_memory_notes({{path, why}}, nullptr);
  }
  analysis::ThroughputVisitor throughput;
  analysis::VisitorChain chain({&counts.calls(), &throughput});
  std::vector<analysis::FileInfo> files = analysis::load_files({path}, chain);
  return {std::move(files.front()), throughput.files().front()};
}

int run_info(const InfoOptions& options) {
  const Inputs inputs = expand_inputs(options.files);
  int status = report_input_errors(inputs.errors) ? kExitOk : kExitFileError;
  bool first = true;
  for (const std::string& path : inputs.files) {
    // Each file is described once read: its own progress.
    ProgressScope progress({path}, 1, options.quiet);
    CallCounts counts;
    const DescribedFile described = describe(path, counts);
    const analysis::FileInfo& file = described.info;
    if (!file.status.opened) {
      print_error(file.path, file.status.error);
      status = kExitFileError;
      continue;
    }
    if (!first) fmt::print("\n");
    first = false;
    print_file(file, counts, described.throughput);
    std::fflush(stdout);
    if (is_damaged(file.status)) print_warning(file.path, integrity_text(file));
  }
  return status;
}

}  // namespace

void add_info_command(CLI::App& app, int& exit_status) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Describe sidecar files: process, versions, record counts, failures, losses");
  cmd->add_option("files", options->files, "Sidecar files and directories of them")
      ->required()
      ->type_name("FILE");
  add_quiet_flag(*cmd, options->quiet);
  cmd->footer(
      "A file without a footer is either still being written (its process is running) or was "
      "left by a process that ended without finishing it (killed or crashed): info and report "
      "say which.\n"
      "Exit status: 0 every file was read; 1 some file could not be read (the others are still "
      "described), or the output could not be written; 2 bad usage.");
  cmd->callback([options, &exit_status] { exit_status = run_info(*options); });
}

}  // namespace gprof::cli
