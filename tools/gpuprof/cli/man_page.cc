// gpuprof man-page (hidden): the roff source of docs/gpuprof.1, made from the
// parser's own commands and options (cli_model.h). The page is checked in
// and installed by meson; a test compares it with this output, so a new
// option cannot be missing from it.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "tools/gpuprof/cli/cli_model.h"
#include "tools/gpuprof/cli/diagnostics.h"
#include "tools/gpuprof/commands.h"

namespace gprof::cli {
namespace {

// Text as roff prints it: backslashes escaped, hyphens that are minus signs
// in options, and no line that starts with a control character.
std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string option_item(const OptionDoc& option) {
  std::string head;
  if (option.flags.empty()) {
    head = fmt::format("\\fI{}\\fR", roff(option.value));
  } else {
    for (const std::string& flag : option.flags)
      head += (head.empty() ? "" : ", ") + fmt::format("\\fB{}\\fR", roff(flag));
    if (!option.value.empty()) head += fmt::format(" \\fI{}\\fR", roff(option.value));
  }
  std::string body = option.description;
  // The values, unless the description already names every one.
  const bool named = std::all_of(option.choices.begin(), option.choices.end(),
                                 [&](const std::string& c) { return body.find(c) != body.npos; });
  if (!named) {
    std::string list;
    for (const std::string& choice : option.choices) list += (list.empty() ? "" : ", ") + choice;
    body += (body.empty() || body.ends_with('.') ? " One of: " : ". One of: ") + list + ".";
  }
  return fmt::format(".TP\n{}\n{}\n", head, roff(body));
}

std::string command_section(const CommandDoc& command) {
  std::string out = fmt::format(".SS {}\n{}\n", roff(command.name), roff(command.description));
  for (const OptionDoc& option : command.options) out += option_item(option);
  // Each line of the footer is a paragraph of its own.
  std::string_view footer = command.footer;
  while (!footer.empty()) {
    const size_t end = std::min(footer.find('\n'), footer.size());
    if (end > 0) out += ".PP\n" + roff(footer.substr(0, end)) + "\n";
    footer.remove_prefix(std::min(end + 1, footer.size()));
  }
  return out;
}

std::string man_page(const CLI::App& app) {
  std::string out =
      ".\\\" Made by 'gpuprof man-page' from gpuprof's own options: do not edit by hand.\n"
      ".TH GPUPROF 1 \"\" \"gprof\" \"User Commands\"\n"
      ".SH NAME\n"
      "gpuprof \\- reports from gprof sidecar files (CUDA API and GPU time)\n"
      ".SH SYNOPSIS\n"
      ".B gpuprof\n"
      ".I COMMAND\n"
      "[\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n"
      ".br\n"
      ".B gpuprof\n"
      "[\\fB\\-\\-help\\fR] [\\fB\\-\\-version\\fR]\n"
      ".SH DESCRIPTION\n" +
      roff(
          "gprof profiles unmodified CUDA programs. libgprof.so, preloaded into a process "
          "(LD_PRELOAD=libgprof.so ./train, or gpuprof record -- ./train), times the CUDA API "
          "calls and the GPU work they issue and writes them to a sidecar file, one per "
          "process. gpuprof reads these files: it prints the table PyTorch users know from "
          "prof.key_averages().table(), describes and dumps files, writes timelines for "
          "Perfetto, and compares runs for CI regression gates.") +
      "\n.SH COMMANDS\n";
  for (const CommandDoc& command : describe_commands(app)) out += command_section(command);
  out += ".SH EXIT STATUS\n" +
         roff(
             "0: success. 1: a file could not be read or written; for diff, a regression. 2: "
             "bad usage; for diff, input that cannot be compared. record exits with the status "
             "of the program it ran. Each command's section above gives its own.") +
         "\n.SH ENVIRONMENT\n" +
         roff(
             "The profiled program reads GPROF_OUTPUT, GPROF_ENABLED, GPROF_MAX_MEMORY, "
             "GPROF_ON_FULL, GPROF_CUPTI, GPROF_CAPTURE and the other GPROF_ variables that "
             "README.md lists. gpuprof record finds libgprof.so through GPROF_LIB, else next "
             "to gpuprof, else in the install's library directory. trace, export, analyze, diff "
             "and report spill what does not fit their bounded memory to anonymous temporary "
             "files in TMPDIR (else /tmp): gigabytes at 10^8 records, so point TMPDIR at a disk "
             "when /tmp is a RAM-backed tmpfs.") +
         "\n.SH SEE ALSO\n" +
         roff(
             "README.md and docs/ of the gprof sources: docs/columns.md (what the columns mean), "
             "docs/diff.md, docs/trace.md, docs/report-json.md, docs/capture.md.") +
         "\n";
  return out;
}

}  // namespace

void add_man_page_command(CLI::App& app, int& exit_status) {
  CLI::App* cmd = app.add_subcommand("man-page", "Print gpuprof's man page (roff)");
  cmd->group("");  // hidden: docs/gpuprof.1 is its output, installed as man page
  const CLI::App* top = &app;
  cmd->callback([top, &exit_status] {
    fmt::print("{}", man_page(*top));
    exit_status = kExitOk;
  });
}

}  // namespace gprof::cli
