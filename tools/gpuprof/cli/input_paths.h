// What the commands accept as input: sidecar files and directories of them
// (one file per process or rank, as `gpuprof record -o DIR/%p.gprof` or a
// job launcher leaves them).
#pragma once

#include <string>
#include <vector>

namespace gprof::cli {

struct Inputs {
  std::vector<std::string> files;   // in the order given; a directory's in path order
  std::vector<std::string> errors;  // "DIR: no sidecar files in it", one per problem
};

// Each argument that is a directory becomes the sidecar files under it
// (recursively; a sidecar file is one that starts with the format's magic,
// whatever its name), sorted by path. Anything else is passed through as a
// file, so that the reader reports what is wrong with it. A file named twice
// is read once.
Inputs expand_inputs(const std::vector<std::string>& arguments);

// Whether `path` is a regular file that starts with the sidecar magic.
bool is_sidecar_file(const std::string& path);

// One run per entry, for `gpuprof diff`: a file is one run; a directory holds
// runs, each of its sidecar files directly in it a run of one process (but
// all of them one run when each has a rank and no rank repeats: the files of
// one multi-rank job), each of its subdirectories with sidecar files a run
// of the processes (ranks) under it.
struct Runs {
  std::vector<std::vector<std::string>> runs;
  std::vector<std::string> errors;
};
Runs expand_runs(const std::string& argument);

// The runs of several arguments, each as expand_runs has it, except that the
// files among them (not directories) are one run when they are one
// multi-rank job, as a directory's are: `--base out/*.gprof`.
Runs expand_run_list(const std::vector<std::string>& arguments);

// Prints each error as "gpuprof: error: ..."; returns whether there were none.
bool report_input_errors(const std::vector<std::string>& errors);

}  // namespace gprof::cli
