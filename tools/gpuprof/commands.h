// The gpuprof subcommands. Each adds itself to the app; when it is the one
// chosen, its callback runs after parsing and stores the exit status.
#pragma once

#include <CLI/CLI.hpp>

namespace gprof::cli {

void add_report_command(CLI::App& app, int& exit_status);
void add_info_command(CLI::App& app, int& exit_status);
void add_dump_command(CLI::App& app, int& exit_status);
void add_record_command(CLI::App& app, int& exit_status);
void add_trace_command(CLI::App& app, int& exit_status);
void add_diff_command(CLI::App& app, int& exit_status);
void add_analyze_command(CLI::App& app, int& exit_status);
void add_export_command(CLI::App& app, int& exit_status);
// `gpuprof completion bash`: a completion script made from the commands above.
void add_completion_command(CLI::App& app, int& exit_status);
// `gpuprof man-page` (hidden): docs/gpuprof.1, made from the commands above.
void add_man_page_command(CLI::App& app, int& exit_status);

}  // namespace gprof::cli
