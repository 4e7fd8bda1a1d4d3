// The prepared INSERT of each table that grows with the run, shared by all
// files: one compilation, then only bind and step per row.
#pragma once

#include <cstdint>

#include "tools/export/sqlite_db.h"

namespace gprof::exporter {

struct Inserts {
  explicit Inserts(Database& db);

  Statement runtime;
  Statement kernel;
  Statement memcpy;
  Statement memset;
  Statement sync;
  Statement nvtx;
  Statement gprof_nvtx;
  Statement thread_name;
  Statement external;
  Statement launch_shared;  // temporary: dynamic shared memory of launches that had some
  uint64_t rows = 0;        // rows inserted by the loaders, for the throughput figure
};

}  // namespace gprof::exporter
