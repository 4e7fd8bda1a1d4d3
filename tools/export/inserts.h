// The INSERTs of the tables that grow with the run, shared by all files:
// compiled once, then only bound and stepped per row; the big integer
// tables several rows per step (batch_insert.h).
#pragma once

#include <cstdint>

#include "tools/export/batch_insert.h"
#include "tools/export/sqlite_db.h"

namespace gprof::exporter {

struct Inserts {
  explicit Inserts(Database& db);
  // Writes the rows the batches hold; before anything reads the tables.
  void flush();

  BatchInsert runtime;
  BatchInsert kernel;
  BatchInsert memcpy;
  BatchInsert memset;
  BatchInsert sync;
  BatchInsert nvtx;
  BatchInsert gprof_nvtx;
  Statement thread_name;
  Statement external;
  Statement launch_shared;  // temporary: dynamic shared memory of launches that had some
  // A range's message and row name once read, for ranges written before it.
  Statement nvtx_text;
  Statement nvtx_row_name;
  uint64_t rows = 0;  // rows inserted by the loaders, for the throughput figure
};

}  // namespace gprof::exporter
