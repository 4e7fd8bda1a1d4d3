// gpuprof completion bash: a bash completion script made from the parser's
// own commands and options (cli_model.h), so it completes exactly what
// gpuprof accepts: commands, each command's options, the values of options
// that take a fixed set, file names elsewhere, and after `record --` the
// command to run.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "tools/gpuprof/cli/cli_model.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/commands.h"

namespace gprof::cli {
namespace {

std::string words(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

std::string bash_script(const CLI::App& app) {
  const std::vector<CommandDoc> commands = describe_commands(app);
  std::vector<std::string> names;
  for (const CommandDoc& c : commands) names.push_back(c.name);
  std::string cases, values;
  for (const CommandDoc& c : commands) {
    std::vector<std::string> flags, taking, positional;
    for (const OptionDoc& o : c.options) {
      flags.insert(flags.end(), o.flags.begin(), o.flags.end());
      if (o.flags.empty()) positional.insert(positional.end(), o.choices.begin(), o.choices.end());
      if (o.value.empty()) continue;
      taking.insert(taking.end(), o.flags.begin(), o.flags.end());
      for (const std::string& flag : o.flags)
        if (!o.choices.empty())
          values +=
              fmt::format("    \"{} {}\") choices=\"{}\" ;;\n", c.name, flag, words(o.choices));
    }
    cases += fmt::format("    {}) flags=\"{}\"; taking=\" {} \"; positional=\"{}\" ;;\n", c.name,
                         words(flags), words(taking), words(positional));
  }
  return fmt::format(R"(# bash completion for gpuprof, made by 'gpuprof completion bash'.
# Load it in the current shell:  source <(gpuprof completion bash)
# or for every shell:  gpuprof completion bash > ~/.local/share/bash-completion/completions/gpuprof
_gpuprof() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
  local cmd="" dashdash=0 i
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ -z $cmd && ${{COMP_WORDS[i]}} != -* ]]; then
      cmd=${{COMP_WORDS[i]}}
    elif [[ -n $cmd && ${{COMP_WORDS[i]}} == -- ]]; then
      dashdash=$i
      break
    fi
  done
  # After 'record ... --': the program to run, then its own arguments.
  if ((dashdash)); then
    if ((COMP_CWORD == dashdash + 1)); then
      COMPREPLY=($(compgen -c -- "$cur"))
    else
      COMPREPLY=($(compgen -f -- "$cur"))
    fi
    return
  fi
  local flags="" taking="" positional="" choices=""
  case $cmd in
    "") COMPREPLY=($(compgen -W "{} --help --version" -- "$cur")); return ;;
{}    *) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  case "$cmd $prev" in
{}  esac
  if [[ -n $choices ]]; then
    COMPREPLY=($(compgen -W "$choices" -- "$cur"))
  elif [[ -n $positional && $cur != -* && $taking != *" $prev "* ]]; then
    COMPREPLY=($(compgen -W "$positional" -- "$cur"))
  elif [[ $taking == *" $prev "* || $cur != -* ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  fi
}}
complete -o filenames -F _gpuprof gpuprof
)",
                     words(names), cases, values);
}

}  // namespace

void add_completion_command(CLI::App& app, int& exit_status) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("completion", "Print a shell completion script for gpuprof");
  cmd->add_option("shell", *shell, "The shell: bash")
      ->required()
      ->type_name("SHELL")
      ->check(CLI::IsMember({"bash"}));
  cmd->footer(
      "Load it with: source <(gpuprof completion bash); install it with: gpuprof completion bash "
      "> ~/.local/share/bash-completion/completions/gpuprof\n"
      "Exit status: 0 printed; 2 bad usage (a shell other than bash).");
  const CLI::App* top = &app;
  // The callback owns `shell`: CLI11 writes the parsed value through the pointer
  // it was given, after this function has returned.
  cmd->callback([top, &exit_status, shell] {
    fmt::print("{}", bash_script(*top));
    exit_status = kExitOk;
  });
}

}  // namespace gprof::cli
