// Expands GPROF_OUTPUT patterns: %p pid, %h host, %r rank, %t start time,
// %q{VAR} any environment variable, %% a literal '%'. Pure, for testing.
#pragma once

#include <cstddef>
#include <cstdint>

#include "collector/process/config.h"

namespace gprof {

struct PathVariables {
  uint32_t pid = 0;
  const char* host = "";
  const char* rank = "0";
  const char* start_time = "";  // e.g. 20261122T035700
  GetEnv getenv_fn = nullptr;
};

// Writes the expansion to `out` (NUL-terminated). Returns false when it does
// not fit or the pattern is malformed (unknown %x, unterminated %q{).
bool expand_output_pattern(const char* pattern, const PathVariables& vars, char* out,
                           size_t out_size);

// RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, in that order; nullptr
// without a launcher (file names then say "0"; the header says nothing).
const char* rank_from_environment(GetEnv getenv_fn);

}  // namespace gprof
