// gpuprof export FILE|DIR... -o OUT.sqlite: the files as one SQLite
// database in the Nsight Systems export schema (docs/export.md).
#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/export/database_file.h"
#include "tools/export/database_writer.h"
#include "tools/export/sqlite_db.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/cli/input_paths.h"
#include "tools/gpuprof/cli/progress.h"
#include "tools/gpuprof/commands.h"

namespace gprof::cli {
namespace {

struct ExportArgs {
  std::vector<std::string> files;
  std::string output;
  bool force = false;
  bool quiet = false;
};

// Why `output` must not be written. A recording is never replaced, not even
// with --force (a glob such as -o gprof-*.gprof expands to recordings);
// another existing file only with --force.
std::optional<std::string> output_problem(const ExportArgs& args,
                                          const std::vector<std::string>& inputs) {
  std::error_code ec;
  const std::string& out = args.output;
  struct stat st {};
  if (::lstat(out.c_str(), &st) != 0) return std::nullopt;
  for (const std::string& input : inputs)
    if (std::filesystem::equivalent(out, input, ec))
      return fmt::format("-o {} is one of the inputs: the database would replace it", out);
  if (is_sidecar_file(out))
    return fmt::format("-o {} is a sidecar file: the database would replace that recording", out);
  if (!S_ISREG(st.st_mode)) return fmt::format("-o {} exists and is not a regular file", out);
  if (!args.force) return fmt::format("-o {} exists (--force replaces it)", out);
  return std::nullopt;
}

int fail(std::string_view message) {
  fmt::print(stderr, "gpuprof: error: {}\n", message);
  return kExitUsage;
}

int run(const ExportArgs& args) {
  Inputs inputs = expand_inputs(args.files);
  if (!report_input_errors(inputs.errors)) return kExitUsage;
  if (const std::optional<std::string> problem = output_problem(args, inputs.files))
    return fail(*problem);
  exporter::DatabaseFile file(args.output);
  std::string error;
  if (!file.create(error)) return fail(error);
  exporter::ExportSummary summary;
  ProgressScope progress(inputs.files, 1, args.quiet);
  try {
    summary = exporter::write_database(inputs.files, file.temp());
  } catch (const std::exception& e) {  // SQLite's own message: disk full, I/O error...
    progress.finish();
    return fail(fmt::format("cannot write {}: {}", args.output, e.what()));
  }
  progress.finish();
  if (!summary.ok()) {
    const analysis::FileInfo& bad = summary.files.back();
    print_error(bad.path, bad.status.error);
    fmt::print(stderr, "gpuprof: error: nothing written to {}\n", args.output);
    return kExitUsage;
  }
  check_files(summary.files);  // warnings for damaged files, which are exported as far as read
  if (!file.commit(error)) return fail(error);
  const double rate = summary.load_seconds > 0 ? summary.rows / summary.load_seconds : 0;
  fmt::print(stderr,
             "gpuprof: wrote {} ({} rows from {} file{} in {:.2f}s; {:.0f} rows/s loading, "
             "indexes included: {:.2f}s)\n",
             args.output, summary.rows, summary.files.size(), summary.files.size() == 1 ? "" : "s",
             summary.load_seconds, rate, summary.seconds);
  return kExitOk;
}

}  // namespace

void add_export_command(CLI::App& app, int& exit_status) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Write a SQLite database in the Nsight Systems export schema (docs/export.md)");
  cmd->add_option("files", args->files,
                  "Sidecar files and directories of them: every process (rank) in one database, "
                  "told apart by globalPid")
      ->required()
      ->type_name("FILE|DIR");
  cmd->add_option("-o,--output", args->output, "The database to write (OUT.sqlite)")
      ->required()
      ->type_name("OUT")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            return value.empty() ? "an empty path names no file" : "";
          },
          ""));
  cmd->add_flag("--force", args->force, "Replace OUT when it exists (never a sidecar file)");
  add_quiet_flag(*cmd, args->quiet);
  cmd->footer(
      "Exit status: 0 written; 2 bad usage, an input that cannot be read, or an output that "
      "exists or cannot be written (nothing is left behind).");
  cmd->callback([args, &exit_status] { exit_status = run(*args); });
}

}  // namespace gprof::cli
