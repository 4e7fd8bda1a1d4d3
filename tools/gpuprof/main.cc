// gpuprof: reads the sidecar files that libgprof.so writes (README.md).
#include <fmt/format.h>
#include <google/protobuf/stubs/logging.h>
#include <malloc.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <system_error>

#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/parse_errors.h"
#include "tools/gpuprof/commands.h"

namespace {

std::string chosen_command(const CLI::App& app) {
  const auto chosen = app.get_subcommands();
  return chosen.empty() ? std::string() : chosen.front()->get_name();
}

}  // namespace

int main(int argc, char** argv) {
  // A frame libprotobuf cannot parse (a string that is not UTF-8, a field cut
  // short) is counted and reported by the reader ("N bad frames skipped");
  // libprotobuf's own "[libprotobuf ERROR ...]" line about it is noise.
  google::protobuf::SetLogHandler(nullptr);
  // glibc raises its trim and mmap thresholds as large blocks are freed and
  // then keeps what is freed later in the process: a report lets its walk
  // go before it makes the rows, and with a row per op (--group-by seq) its
  // peak RSS was a third above its peak heap. Fixed thresholds (which turn
  // the raising off) give it back.
  mallopt(M_TRIM_THRESHOLD, 1 << 20);
  CLI::App app{"gpuprof: reports from gprof sidecar files (CUDA API and GPU time)", "gpuprof"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("gpuprof ") + GPROF_VERSION);

  int status = gprof::cli::kExitOk;
  gprof::cli::add_report_command(app, status);
  gprof::cli::add_info_command(app, status);
  gprof::cli::add_dump_command(app, status);
  gprof::cli::add_trace_command(app, status);
  gprof::cli::add_export_command(app, status);
  gprof::cli::add_diff_command(app, status);
  gprof::cli::add_analyze_command(app, status);
  gprof::cli::add_record_command(app, status);
  gprof::cli::add_completion_command(app, status);
  gprof::cli::add_man_page_command(app, status);
  // After the subcommands, which would otherwise inherit it.
  app.footer(
      "Run 'gpuprof COMMAND --help' for the options of a command.\n"
      "Exit status: 0 success; 1 a file could not be read or written; 2 bad usage. 'gpuprof "
      "diff' exits 1 on a regression and 2 on input it cannot compare, 'gpuprof analyze' 1 when a "
      "--fail-on rule fires and 2 on bad input, 'gpuprof export' 2 on "
      "any failure, 'gpuprof record' with the status of the program it ran: each command's "
      "--help lists its own.");
  app.failure_message(gprof::cli::parse_failure);

  if (const auto error = gprof::cli::unknown_command(app, argc, argv)) {
    fmt::print(stderr, "{}", *error);
    return gprof::cli::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help, version or the usage error
    if (rc != 0) return gprof::cli::kExitUsage;
    return gprof::cli::finish_stdout(chosen_command(app), gprof::cli::kExitOk);
  } catch (const std::system_error& e) {
    // fmt throws so when stdout cannot take what it prints.
    if (std::ferror(stdout))
      gprof::cli::print_stdout_error(e.code().value());
    else
      fmt::print(stderr, "gpuprof: error: {}\n", e.what());
    return gprof::cli::finish_stdout(chosen_command(app), gprof::cli::kExitOk, /*failed=*/true);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuprof: error: {}\n", e.what());
    return gprof::cli::finish_stdout(chosen_command(app), gprof::cli::kExitOk, /*failed=*/true);
  }
  return gprof::cli::finish_stdout(chosen_command(app), status);
}
