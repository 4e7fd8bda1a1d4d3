// Progress of a command that reads sidecar files, on stderr when it is a
// terminal (issue 13 item 4): bytes read of the total, records per second and
// the time left, redrawn in place. Nothing until the command has run for a
// second (GPUPROF_PROGRESS_DELAY_MS changes that, for tests), nothing when
// stderr is not a terminal (CI logs stay clean) or with --quiet. The line is
// erased once every byte is read and when the scope ends, before anything
// else is printed.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gprof::cli {

class ProgressDisplay;

class ProgressScope {
 public:
  // `files`: the sidecar files the command reads, `passes` times each (trace
  // reads several files twice: once for their clocks, once for the events).
  // `streams_stdout`: the command prints while it reads (dump, trace -o -):
  // no progress when stdout is a terminal too, where the two would mix.
  // `work`: the noun of what the command tells of its work after reading
  // (analysis::WorkProgress; trace: "events"); empty: nothing is shown then.
  ProgressScope(const std::vector<std::string>& files, int passes, bool quiet,
                bool streams_stdout = false, std::string_view work = {});
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;
  // Erases the line and stops drawing (before printing the results).
  void finish();

 private:
  std::unique_ptr<ProgressDisplay> display_;
};

// Erases the progress line, if one is drawn, before a message on stderr (it
// is drawn again on the next frame read).
void erase_progress_line();

// Adds --quiet (-q) to a reading command.
void add_quiet_flag(CLI::App& cmd, bool& quiet);

}  // namespace gprof::cli
