// What gpuprof says when its command line is wrong: one "gpuprof: error:"
// line, as every other error of the CLI, with a suggestion when the word is
// close to a command or option that exists, and where to look next.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace gprof::cli {

// The first word when it names no command (CLI11 would report only that
// some command is required): the error line with the closest commands.
// nullopt when the first word is an option or a command.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv);

// CLI11's failure_message: the error with the "gpuprof: error: " prefix,
// "did you mean" for an unknown option, and the --help to read.
std::string parse_failure(const CLI::App* app, const CLI::Error& error);

// The command names, for suggestions and completion.
std::vector<std::string> command_names(const CLI::App& app);

}  // namespace gprof::cli
