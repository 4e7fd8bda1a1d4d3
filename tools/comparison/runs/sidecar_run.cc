#include "tools/comparison/runs/sidecar_run.h"

#include <utility>

#include "tools/analysis/aggregate/key_averages.h"
#include "tools/analysis/aggregate/ops_files.h"
#include "tools/analysis/aggregate/ops_rows.h"
#include "tools/analysis/read/visitor_chain.h"

namespace gprof::comparison {

SidecarRun load_sidecar_run(const std::vector<std::string>& paths, const RowOptions& options,
                            analysis::ProfileVisitor* also) {
  if (also == nullptr) {
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
  analysis::KeyAverages averages;
  analysis::OpsRowsVisitor ops(averages,
                               analysis::OpsOptions{options.group_by, options.ranges, false});
  analysis::VisitorChain chain({&ops, also});
  SidecarRun run;
  run.files = analysis::load_files(paths, chain);
  run.rows = run_rows(averages.finish());
  return run;
}

}  // namespace gprof::comparison
