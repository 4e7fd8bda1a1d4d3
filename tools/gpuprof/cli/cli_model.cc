#include "tools/gpuprof/cli/cli_model.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "tools/analysis/aggregate/group_by.h"
#include "tools/analysis/render/launch_table.h"
#include "tools/analysis/render/sort.h"
#include "tools/analysis/render/transfer_table.h"
#include "tools/analysis/render/views.h"
#include "tools/comparison/runs/metrics.h"
#include "tools/findings/rules/rule.h"

namespace gprof::cli {
namespace {

// Each once: the launches and memory views share "name" and "count".
template <typename Names>
void append(std::vector<std::string>& out, const Names& names) {
  for (const auto& name : names)
    if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
}

// Values checked by a parse function rather than a CLI::IsMember list, which
// CLI11 cannot show: they come from the same functions that parse them.
std::vector<std::string> parsed_choices(std::string_view command, std::string_view option) {
  std::vector<std::string> out;
  if (option == "--group-by") append(out, analysis::group_by_names());
  if (command == "report" && option == "--view") append(out, analysis::view_names());
  if (command == "report" && option == "--sort") {
    append(out, analysis::sort_key_names());
    append(out, analysis::transfer_sort_key_names());
    append(out, analysis::launch_sort_key_names());
  }
  if (command == "diff" && (option == "--sort" || option == "--metrics"))
    for (comparison::Metric metric : comparison::kAllMetrics)
      out.emplace_back(comparison::metric_name(metric));
  if (command == "analyze" && (option == "--rules" || option == "--fail-on")) {
    for (const findings::RuleSpec* rule : findings::all_rules()) out.emplace_back(rule->id);
    if (option == "--fail-on") out.emplace_back("all");
  }
  return out;
}

// CLI11 writes a CLI::IsMember list into the type name: "FORMAT:{text,md}".
std::pair<std::string, std::vector<std::string>> split_type_name(const std::string& type) {
  const size_t open = type.find(":{");
  if (open == std::string::npos || type.back() != '}') return {type, {}};
  std::vector<std::string> choices;
  std::string list = type.substr(open + 2, type.size() - open - 3);
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    choices.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return {type.substr(0, open), choices};
}

OptionDoc describe_option(const std::string& command, const CLI::Option& option) {
  OptionDoc doc;
  for (const std::string& name : option.get_snames()) doc.flags.push_back("-" + name);
  for (const std::string& name : option.get_lnames()) doc.flags.push_back("--" + name);
  doc.description = option.get_description();
  if (option.get_type_size() != 0) {
    auto [value, choices] = split_type_name(option.get_type_name());
    doc.value = value.empty() ? option.get_name(true) : value;
    doc.choices = std::move(choices);
    if (!doc.flags.empty() && doc.choices.empty())
      doc.choices = parsed_choices(command, doc.flags.back());
  }
  return doc;
}

}  // namespace

std::vector<CommandDoc> describe_commands(const CLI::App& app) {
  std::vector<CommandDoc> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group().empty()) continue;  // hidden
    CommandDoc command{sub->get_name(), sub->get_description(), sub->get_footer(), {}};
    for (const CLI::Option* option : sub->get_options())
      command.options.push_back(describe_option(command.name, *option));
    out.push_back(std::move(command));
  }
  return out;
}

}  // namespace gprof::cli
