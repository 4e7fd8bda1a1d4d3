// The commands and options of gpuprof as data, read from the CLI11 app
// itself, so that the shell completion and the man page are made from what
// the parser accepts and cannot drift from it.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gprof::cli {

struct OptionDoc {
  std::vector<std::string> flags;  // "-o", "--output"; empty for a positional argument
  std::string value;               // "FILE", "KEY"; empty for a flag
  std::string description;
  std::vector<std::string> choices;  // the values it takes, when they are a fixed set
};

struct CommandDoc {
  std::string name;
  std::string description;
  std::string footer;
  std::vector<OptionDoc> options;  // --help first, then as the command adds them
};

// The visible commands, in the order `gpuprof --help` lists them.
std::vector<CommandDoc> describe_commands(const CLI::App& app);

}  // namespace gprof::cli
