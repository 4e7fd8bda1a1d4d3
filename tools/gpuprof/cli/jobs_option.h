// --jobs of the commands that aggregate many files (report, diff): how many
// files are read at once, each on a thread of its own. The output is the same
// whatever the number (tools/analysis/read/parallel_files.h).
#pragma once

#include <CLI/CLI.hpp>

#include <algorithm>

namespace gprof::cli {

// Adds -j/--jobs N to `cmd`; 0 (the default) stands for the hardware threads.
void add_jobs_option(CLI::App& cmd, unsigned& jobs);

// trace's threads when --jobs is not given: one per hardware thread, at most
// kTraceJobsCap. The trace's first thread is its serial part (docs/trace.md,
// "Memory and speed": at most about 3.8x one thread's speed for .json, 5.4x
// for .json.gz), and threads past it only contend: on the 16-core machine
// lent with an H200 (2026-11-27), `trace -o x.json.gz` of a 15M-record file
// took 3.14 s at --jobs 4 and 3.38 s at --jobs 16.
inline constexpr unsigned kTraceJobsCap = 4;
inline unsigned default_trace_jobs(unsigned hardware_threads) {
  return std::clamp(hardware_threads, 1u, kTraceJobsCap);
}

}  // namespace gprof::cli
