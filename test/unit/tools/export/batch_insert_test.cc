// Rows written several per statement come out as if inserted one by one:
// full batches, the tail that flush() writes, NULLs and texts in place.
#include "tools/export/batch_insert.h"

#include <catch2/catch.hpp>
#include <string>

#include "tools/export/sqlite_db.h"

namespace gprof::exporter {

TEST_CASE("batched rows: full batches, a partial tail, NULL and text cells") {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(":memory:", &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "CREATE TABLE t (a INTEGER, b INTEGER, c TEXT)", nullptr, nullptr,
                       nullptr) == SQLITE_OK);
  {
    BatchInsert insert(db, "t (a, b, c)", 3, 4);
    const std::string texts[] = {"even", "odd"};
    for (int i = 0; i < 10; ++i) {
      insert.set(1, i);
      if (i % 3 == 0)
        insert.set_null(2);
      else
        insert.set(2, int64_t{i} * 1000000000000);
      insert.set(3, std::string_view(texts[i % 2]));
      insert.end_row();
    }
    Statement count(db, "SELECT count(*) FROM t");
    REQUIRE(count.next());
    CHECK(count.column_int(0) == 8);  // two batches of 4 written, 2 rows wait
    count.next();
    insert.flush();
    insert.flush();  // nothing waits: writes nothing
  }
  Statement rows(db, "SELECT a, coalesce(b, -1), c FROM t ORDER BY rowid");
  int i = 0;
  while (rows.next()) {
    CHECK(rows.column_int(0) == i);
    CHECK(rows.column_int(1) == (i % 3 == 0 ? -1 : int64_t{i} * 1000000000000));
    CHECK(rows.column_text(2) == (i % 2 == 0 ? "even" : "odd"));
    ++i;
  }
  CHECK(i == 10);
  sqlite3_close(db);
}

TEST_CASE("a target that is no table fails before any row") {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(":memory:", &db) == SQLITE_OK);
  CHECK_THROWS_AS(BatchInsert(db, "missing (a)", 1), SqliteError);
  sqlite3_close(db);
}

}  // namespace gprof::exporter
