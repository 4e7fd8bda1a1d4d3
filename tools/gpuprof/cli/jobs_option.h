// --jobs of the commands that aggregate many files (report, diff): how many
// files are read at once, each on a thread of its own. The output is the same
// whatever the number (tools/analysis/read/parallel_files.h).
#pragma once

#include <CLI/CLI.hpp>

namespace gprof::cli {

// Adds -j/--jobs N to `cmd`; 0 (the default) stands for the hardware threads.
void add_jobs_option(CLI::App& cmd, unsigned& jobs);

}  // namespace gprof::cli
