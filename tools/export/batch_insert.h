// Inserts of rows, several rows per statement. Stepping a prepared
// statement costs more than binding its values, so one INSERT with 32 rows
// of VALUES loads the big tables (API calls, GPU work) about twice as fast
// as 32 single-row inserts. Rows wait in a small buffer until the batch is
// full or flush() is called.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tools/export/sqlite_db.h"

namespace gprof::exporter {

class BatchInsert {
 public:
  // `target`: "TABLE (column, ...)" with `columns` columns.
  BatchInsert(sqlite3* db, std::string target, int columns, int rows_per_batch = 32);

  // Columns are numbered from 1, as in Statement::bind.
  void set(int column, int64_t value) { row_[column - 1] = Cell{Kind::kInteger, value, {}}; }
  // The text is not copied: it must stay valid until the row is written
  // (flush(), or the end_row() that fills the batch).
  void set(int column, std::string_view text) { row_[column - 1] = Cell{Kind::kText, 0, text}; }
  void set_null(int column) { row_[column - 1] = Cell{Kind::kNull, 0, {}}; }
  // Appends the row set so far (unset columns keep the previous row's values).
  void end_row();
  // Writes the rows that wait.
  void flush();

 private:
  enum class Kind : uint8_t { kNull, kInteger, kText };
  struct Cell {
    Kind kind;
    int64_t value;
    std::string_view text;
  };
  Statement& statement(int rows);
  void write(int rows);

  sqlite3* db_;
  std::string target_;
  int columns_;
  int batch_;
  std::vector<Cell> row_;
  std::vector<Cell> waiting_;                             // rows * columns cells
  std::map<int, std::unique_ptr<Statement>> statements_;  // by rows per statement
};

}  // namespace gprof::exporter
