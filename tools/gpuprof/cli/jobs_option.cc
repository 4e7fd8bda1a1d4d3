#include "tools/gpuprof/cli/jobs_option.h"

#include "tools/gpuprof/cli/whole_number.h"

namespace gprof::cli {

void add_jobs_option(CLI::App& cmd, unsigned& jobs) {
  cmd.add_option(
         "-j,--jobs", jobs,
         "Read up to N files at once, each on its own thread (0: one per hardware "
         "thread); the output is the same for any N. Each file read at once takes memory of "
         "its own (diff: the two sides' findings are read at once when N is 2 or more)")
      ->type_name("N")
      ->capture_default_str()
      ->check(whole_number(0));
}

}  // namespace gprof::cli
