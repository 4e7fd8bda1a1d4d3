// Transitional: the ops rows grew ranges, memory and scope and moved to
// ops_rows.h. `gpuprof record` (cmd_record.cc) still includes this name;
// switch it to ops_rows.h / OpsRowsVisitor and delete this file.
#pragma once

#include "tools/analysis/ops_rows.h"

namespace gprof::analysis {

using ApiRowsVisitor = OpsRowsVisitor;

}  // namespace gprof::analysis
