// What `gpuprof info` says about a file's GPU side: its GPU records and how
// CUPTI captured them (pb::CuptiStatus).
#pragma once

#include <string>

#include "tools/analysis/read/profile.h"

namespace gprof::cli {

// "12 (8 kernels, 2 copies, 1 set, 1 sync); 3 unpaired", then records
// skipped for want of a timestamp and a footer count that disagrees; "none".
std::string describe_gpu_records(const analysis::FileInfo& file);

// The "CUPTI:" section: state, version, library, injection, timestamps,
// reason, activity kinds, buffer pool, external correlations.
void print_cupti(const analysis::FileInfo& file);

}  // namespace gprof::cli
