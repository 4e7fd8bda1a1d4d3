// The tables of the database (docs/export.md): Nsight Systems' names,
// column names, types and meanings for what gprof records, and GPROF_
// tables for what nsys has no place for. Tables are created before the load
// and indexes after it (an index maintained row by row costs more than one
// built from the loaded table).
#pragma once

#include "tools/export/sqlite_db.h"

namespace gprof::exporter {

void create_tables(Database& db);
void create_indexes(Database& db);

}  // namespace gprof::exporter
