// Reads sidecar files into timelines and runs rules on them: what
// `gpuprof analyze`, the findings `gpuprof record` prints and the new
// findings of `gpuprof diff` share.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tools/analysis/read/profile.h"
#include "tools/findings/analysis.h"
#include "tools/findings/timeline/timeline_builder.h"

namespace gprof::findings {

struct Loaded {
  std::vector<analysis::FileInfo> infos;
  std::vector<Timeline> timelines;
};

Loaded load_timelines(const std::vector<std::string>& paths, const Scope& scope);

struct AnalyzedFiles {
  std::vector<analysis::FileInfo> infos;
  Analysis analysis;
  bool range_matched = false;  // with --range: some file has a range it matches
  // Files the stream declined and read in memory, each on its own, and why:
  // one "gpuprof: note: FILE: read in memory (WHY)" each
  // (print_in_memory_notes).
  std::vector<std::pair<std::string, std::string>> in_memory;
};

// The threads `jobs` stands for: itself, or with 0 one per hardware thread,
// at most kDefaultAnalyzeJobs: each file read at once holds its own sorts
// (30 to 55 MB), and 4 files at once keep the peak within issue 31's 256 MB
// (4 files of 10M records, --jobs 4: 139 MB) where 16 cores would not.
inline constexpr unsigned kDefaultAnalyzeJobs = 4;
unsigned analyze_jobs(unsigned jobs);

// Reads the files and runs `rules` on them: as streams (streamed_file.h),
// in memory that does not grow with the files; a file the stream cannot
// take is read in memory on its own and added to the same tallies, and
// with GPROF_STREAM=0 every file is (load_timelines), which gives the same
// findings. `jobs` threads (analyze_jobs) read and prepare files at once
// (parallel_files.h), each with memory of its own; the tallies take them in
// file order, so the findings are the same for any number.
AnalyzedFiles analyze_files(const std::vector<std::string>& paths,
                            std::vector<const RuleSpec*> rules, Thresholds thresholds,
                            const Scope& scope, unsigned jobs = 0);

AnalyzedFiles analyze_files_with_defaults(const std::vector<std::string>& paths, const Scope& scope,
                                          unsigned jobs = 0);

// "[high] gpu-idle: 12.3ms, 65.0% of the window, in 'data_loader' (100.0%)": one
// line of a finding, for record's summary and diff's list.
std::string brief_text(const Finding& finding);

}  // namespace gprof::findings
