#include "tools/gpuprof/cli/parse_errors.h"

#include <fmt/format.h>

#include <string_view>

#include "tools/gpuprof/cli/suggest.h"

namespace gprof::cli {
namespace {

// The command the user chose, if parsing got that far.
const CLI::App* chosen(const CLI::App* app) {
  const std::vector<CLI::App*> parsed = app->get_subcommands();
  return parsed.empty() ? nullptr : parsed.front();
}

std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* option : app.get_options())
    for (const std::string& name : option->get_lnames()) out.push_back("--" + name);
  return out;
}

// "--sortt" of "The following arguments were not expected: --sortt x",
// against the options of `command`. The words are read from the message:
// CLI11 keeps no list of them once it has thrown.
std::string option_hint(std::string_view message, const CLI::App& command) {
  const size_t colon = message.find(": ");
  if (colon == std::string_view::npos) return "";
  std::string_view words = message.substr(colon + 2);
  while (!words.empty()) {
    const size_t space = std::min(words.find(' '), words.size());
    const std::string_view word = words.substr(0, space);
    if (word.starts_with("--"))
      return did_you_mean(word.substr(0, word.find('=')), long_options(command));
    words.remove_prefix(std::min(space + 1, words.size()));
  }
  return "";
}

}  // namespace

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (!sub->get_group().empty()) out.push_back(sub->get_name());
  return out;
}

std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2) return std::nullopt;
  const std::string_view word = argv[1];
  if (word.empty() || word.starts_with("-")) return std::nullopt;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(std::string(word))) return std::nullopt;
  std::string commands;
  for (const std::string& name : command_names(app))
    commands += (commands.empty() ? "" : ", ") + name;
  return fmt::format(
      "gpuprof: error: '{}' is not a gpuprof command{}\nCommands: {}. Run 'gpuprof --help' for "
      "what each does.\n",
      word, did_you_mean(word, command_names(app)), commands);
}

std::string parse_failure(const CLI::App* app, const CLI::Error& error) {
  const CLI::App* command = chosen(app);
  std::string out = fmt::format("gpuprof: error: {}", error.what());
  // Its name is the app's, not "ExtrasError", when an app throws it.
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr)
    out += option_hint(error.what(), command ? *command : *app);
  return out + fmt::format("\nRun 'gpuprof {}--help' for the options and exit statuses.\n",
                           command ? command->get_name() + " " : "");
}

}  // namespace gprof::cli
