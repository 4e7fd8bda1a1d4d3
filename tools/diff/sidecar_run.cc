#include "tools/diff/sidecar_run.h"

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/ops_rows.h"

namespace gprof::diff {

SidecarRun load_sidecar_run(const std::vector<std::string>& paths, const RowOptions& options) {
  analysis::KeyAverages averages;
  analysis::OpsRowsVisitor ops(averages,
                               analysis::OpsOptions{options.group_by, options.ranges, false});
  SidecarRun run;
  run.files = analysis::load_files(paths, ops);
  run.rows = run_rows(averages.finish());
  return run;
}

}  // namespace gprof::diff
