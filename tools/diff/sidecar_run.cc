#include "tools/diff/sidecar_run.h"

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/ops_rows.h"
#include "tools/analysis/read/visitor_chain.h"

namespace gprof::diff {

SidecarRun load_sidecar_run(const std::vector<std::string>& paths, const RowOptions& options,
                            analysis::ProfileVisitor* also) {
  analysis::KeyAverages averages;
  analysis::OpsRowsVisitor ops(averages,
                               analysis::OpsOptions{options.group_by, options.ranges, false});
  analysis::VisitorChain chain({&ops, also});
  SidecarRun run;
  run.files =
      analysis::load_files(paths, also ? static_cast<analysis::ProfileVisitor&>(chain) : ops);
  run.rows = run_rows(averages.finish());
  return run;
}

}  // namespace gprof::diff
