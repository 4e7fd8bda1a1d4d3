// A thin owner of libsqlite3's C handles. Every failure throws SqliteError
// with SQLite's own message, so that the exporter has one place that turns
// "disk I/O error" or "database or disk is full" into a gpuprof message and
// removes the half-written file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gprof::exporter {

class SqliteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A prepared statement, reset after each step so that it can be bound again:
// the loader binds and steps millions of rows through a handful of these.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are numbered from 1, as sqlite3_bind_* numbers them.
  void bind(int index, int64_t value);
  void bind(int index, std::string_view text);
  void bind_null(int index);
  // Runs an insert or update; resets the statement for its next row.
  void run();
  // Steps a query: true while it yields a row, false (and reset) at its end.
  bool next();
  int64_t column_int(int index) const;
  std::string column_text(int index) const;

 private:
  void check(int rc, const char* what) const;

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  // Creates the file (it must not exist: the exporter writes a fresh
  // temporary file, never into someone else's database).
  explicit Database(const std::string& path);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  void exec(std::string_view sql);
  int64_t changes() const { return sqlite3_changes64(db_); }
  sqlite3* handle() { return db_; }
  // Closes the connection, throwing when SQLite reports that it could not
  // finish writing; the destructor closes without reporting.
  void close();

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace gprof::exporter
