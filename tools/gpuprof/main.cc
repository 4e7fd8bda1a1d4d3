// gpuprof: reads the sidecar files that libgprof.so writes (DESIGN.md §1).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "tools/gpuprof/commands.h"
#include "tools/gpuprof/diagnostics.h"

int main(int argc, char** argv) {
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
  gprof::cli::add_record_command(app, status);
  // After the subcommands, which would otherwise inherit it.
  app.footer("Run 'gpuprof COMMAND --help' for the options of a command.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help, version or the usage error
    return rc == 0 ? gprof::cli::kExitOk : gprof::cli::kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuprof: error: {}\n", e.what());
    return gprof::cli::kExitFileError;
  }
  std::fflush(stdout);
  return status;
}
