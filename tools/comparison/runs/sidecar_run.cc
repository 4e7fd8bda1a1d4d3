#include "tools/comparison/runs/sidecar_run.h"

#include <utility>

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/ops_files.h"

namespace gprof::comparison {

SidecarRun load_sidecar_run(const std::vector<std::string>& paths, const RowOptions& options) {
  analysis::OpsFilesOptions parallel;
  parallel.ops = analysis::OpsOptions{options.group_by, options.ranges, false};
  parallel.jobs = options.jobs;
  analysis::OpsFiles read = analysis::aggregate_ops_files(paths, parallel);
  SidecarRun run;
  run.files = std::move(read.files);
  run.in_memory = std::move(read.in_memory);
  run.rows = run_rows(read.rows.finish());
  return run;
}

}  // namespace gprof::comparison
