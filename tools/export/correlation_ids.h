// CUPTI's 32-bit correlation ids unwrapped in the database, as `report` and
// `trace` unwrap them (analysis/model/correlation_unwrap.h), so that after a wrap an
// API call joins its own GPU work and not that of a call 2^32 ids earlier.
// The rows are loaded as recorded; a file whose ids span enough for a wrap
// is then read back in the order CUPTI handed the ids out (SQLite sorts
// outside memory), its calls' changed ids rewritten by rowid, and the GPU
// tables' rewritten in one UPDATE each through a function of that pass; the
// mappings' changed CUPTI ids too.
#pragma once

#include <cstdint>

#include "tools/export/sqlite_db.h"

namespace gprof::exporter {

// The ids one file recorded, lowest and highest, to tell whether it needs a pass.
struct IdSpan {
  uint64_t lowest = UINT64_MAX;
  uint64_t highest = 0;
  void add(uint64_t id) {
    if (id == 0) return;
    if (id < lowest) lowest = id;
    if (id > highest) highest = id;
  }
};

// Which ids a file's unwrapping goes over, as analysis/read/call_pairing.h
// unwraps them for its PairingMode.
enum class UnwrapOrder {
  // kCorrelation: the calls' ids (CUPTI_ACTIVITY_KIND_RUNTIME) and a
  // takeover's GPROF_EXTERNAL_CORRELATION CUPTI ids in the order CUPTI
  // handed them out, then the GPU tables' and the launches' kept for the
  // shared memory split by their start.
  kCallsAndMappings,
  // kCorrelation in a file of an older gprof (pushed ids from 1, which
  // cannot be told from CUPTI's): the calls' ids alone, then as above.
  kCalls,
  // kExternalOnly: the calls carry pushed ids, which do not wrap;
  // GPROF_EXTERNAL_CORRELATION's CUPTI ids are unwrapped in pushed order,
  // then the GPU tables'.
  kMappings,
};
// `span`: the CUPTI ids so unwrapped. Returns whether any id changed.
bool unwrap_correlations(Database& db, int64_t global_pid, UnwrapOrder order, IdSpan span);

}  // namespace gprof::exporter
