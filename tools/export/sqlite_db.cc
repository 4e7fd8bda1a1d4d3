#include "tools/export/sqlite_db.h"

#include <fmt/format.h>

namespace gprof::exporter {

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK)
    throw SqliteError(fmt::format("cannot prepare '{}': {}", sql, sqlite3_errmsg(db)));
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::check(int rc, const char* what) const {
  if (rc != SQLITE_OK) throw SqliteError(fmt::format("{}: {}", what, sqlite3_errmsg(db_)));
}

void Statement::bind(int index, int64_t value) {
  check(sqlite3_bind_int64(stmt_, index, value), "bind");
}

void Statement::bind(int index, std::string_view text) {
  // SQLITE_STATIC: the caller's text outlives the step that reads it.
  check(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8),
        "bind");
}

void Statement::bind_null(int index) {
  check(sqlite3_bind_null(stmt_, index), "bind");
}

void Statement::run() {
  const int rc = sqlite3_step(stmt_);
  sqlite3_reset(stmt_);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) throw SqliteError(sqlite3_errmsg(db_));
}

bool Statement::next() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  sqlite3_reset(stmt_);
  if (rc != SQLITE_DONE) throw SqliteError(fmt::format("cannot read: {}", sqlite3_errmsg(db_)));
  return false;
}

int64_t Statement::column_int(int index) const {
  return sqlite3_column_int64(stmt_, index);
}

std::string Statement::column_text(int index) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, index));
  return text == nullptr ? std::string() : std::string(text);
}

Database::Database(const std::string& path) {
  // gpuprof uses SQLite from one thread: no mutexes at all (the
  // connection's, the page cache's, the allocator's), no memory statistics.
  // They cost ~15% of an insert. Must precede SQLite's initialization.
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
  const int rc = sqlite3_open_v2(
      path.c_str(), &db_,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_EXRESCODE,
      nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqliteError(fmt::format("cannot create {}: {}", path, message));
  }
}

Database::~Database() {
  sqlite3_close_v2(db_);
}

void Database::exec(std::string_view sql) {
  char* message = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message ? message : sqlite3_errmsg(db_);
    sqlite3_free(message);
    throw SqliteError(why);
  }
}

void Database::close() {
  sqlite3* db = db_;
  db_ = nullptr;
  if (sqlite3_close(db) != SQLITE_OK) {
    const std::string why = sqlite3_errmsg(db);
    sqlite3_close_v2(db);
    throw SqliteError(fmt::format("cannot close the database: {}", why));
  }
}

}  // namespace gprof::exporter
