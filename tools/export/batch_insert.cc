#include "tools/export/batch_insert.h"

namespace gprof::exporter {

BatchInsert::BatchInsert(sqlite3* db, std::string target, int columns, int rows_per_batch)
    : db_(db),
      target_(std::move(target)),
      columns_(columns),
      batch_(rows_per_batch),
      row_(static_cast<size_t>(columns), Cell{Kind::kNull, 0, {}}) {
  waiting_.reserve(static_cast<size_t>(columns) * static_cast<size_t>(rows_per_batch));
  statement(batch_);  // a bad target fails here, before any row
}

Statement& BatchInsert::statement(int rows) {
  std::unique_ptr<Statement>& s = statements_[rows];
  if (!s) {
    std::string sql = "INSERT INTO " + target_ + " VALUES ";
    std::string values = "(";
    for (int c = 0; c < columns_; ++c) values += c == 0 ? "?" : ", ?";
    values += ")";
    for (int r = 0; r < rows; ++r) sql += (r == 0 ? "" : ", ") + values;
    s = std::make_unique<Statement>(db_, sql);
  }
  return *s;
}

void BatchInsert::end_row() {
  waiting_.insert(waiting_.end(), row_.begin(), row_.end());
  if (waiting_.size() == static_cast<size_t>(columns_) * static_cast<size_t>(batch_)) write(batch_);
}

void BatchInsert::flush() {
  if (!waiting_.empty()) write(static_cast<int>(waiting_.size() / static_cast<size_t>(columns_)));
}

void BatchInsert::write(int rows) {
  Statement& s = statement(rows);
  int index = 1;
  for (const Cell& cell : waiting_) {
    switch (cell.kind) {
      case Kind::kNull:
        s.bind_null(index++);
        break;
      case Kind::kInteger:
        s.bind(index++, cell.value);
        break;
      case Kind::kText:
        s.bind(index++, cell.text);
        break;
    }
  }
  waiting_.clear();
  s.run();
}

}  // namespace gprof::exporter
