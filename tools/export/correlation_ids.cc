#include "tools/export/correlation_ids.h"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include <sqlite3.h>

#include "tools/analysis/model/correlation_unwrap.h"
#include "tools/export/global_ids.h"

namespace gprof::exporter {
namespace {

// Tables whose correlationId is a GPU record's CUPTI id, by globalPid.
constexpr const char* kGpuTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                      "CUPTI_ACTIVITY_KIND_MEMSET",
                                      "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"};
// The launches kept for the shared memory split (database_writer.cc): their
// calls' ids, but in UnwrapOrder::kMappings (where they are pushed ids).
constexpr const char* kLaunches = "temp.launch_shared";

// New ids by table (kCalls, kMappings) and rowid, kept in a temporary table
// (on disk past SQLite's cache) and applied with one UPDATE a table once the
// query that found them is done.
enum Table : int64_t { kCalls, kMappings };
class Changes {
 public:
  explicit Changes(Database& db) : db_(db) {
    db.exec(
        "CREATE TEMP TABLE IF NOT EXISTS unwrapped (tab INTEGER, row INTEGER, id INTEGER, "
        "PRIMARY KEY (tab, row)) WITHOUT ROWID");
    db.exec("DELETE FROM temp.unwrapped");
    insert_.emplace(db.handle(), "INSERT INTO temp.unwrapped (tab, row, id) VALUES (?, ?, ?)");
  }
  void add(Table table, int64_t row, uint64_t id) {
    insert_->bind(1, static_cast<int64_t>(table));
    insert_->bind(2, row);
    insert_->bind(3, static_cast<int64_t>(id));
    insert_->run();
  }
  // Writes those of `table` into `name`.
  void apply(Table table, const char* name) {
    db_.exec(fmt::format(
        "UPDATE {0} SET correlationId = u.id FROM temp.unwrapped AS u WHERE u.tab = {1} AND "
        "{0}.rowid = u.row",
        name, static_cast<int64_t>(table)));
  }

 private:
  Database& db_;
  std::optional<Statement> insert_;
};

uint64_t to_u64(int64_t value) {
  return static_cast<uint64_t>(value);
}

}  // namespace

bool unwrap_correlations(Database& db, int64_t global_pid, UnwrapOrder order, IdSpan span) {
  if (!analysis::CorrelationUnwrap::may_wrap(span.lowest, span.highest)) return false;
  analysis::CorrelationUnwrap unwrap;
  Changes changes(db);
  const int64_t last_tid = global_pid + static_cast<int64_t>(kIdMask);
  const bool external_only = order == UnwrapOrder::kMappings;
  if (!external_only) {
    // In the order CUPTI handed the ids out (call_pairing.h): the calls' by
    // their start and, a takeover's, the mappings' by the start of the
    // first call that pushed their id (a mapping without one: no sample,
    // after the one pushed before it, or before the first with a time, or
    // with none after every call), a call first at equal times.
    Statement handouts(
        db.handle(),
        fmt::format(
            "WITH mapping AS (SELECT e.rowid AS row, e.correlationId AS raw, e.externalId AS "
            "pushed, (SELECT min(r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r WHERE "
            "r.correlationId = e.externalId AND r.globalTid BETWEEN {0} AND {1}) AS t FROM "
            "GPROF_EXTERNAL_CORRELATION AS e WHERE e.globalPid = {0} AND e.correlationId != 0 "
            "AND {4}), "
            // grp: how many timed mappings up to this one in pushed order.
            "grouped AS (SELECT *, count(t) OVER (ORDER BY pushed, row ROWS UNBOUNDED "
            "PRECEDING) AS grp FROM mapping), "
            "placed AS (SELECT *, coalesce(t, max(t) OVER (PARTITION BY grp), max(CASE WHEN grp "
            "= 1 THEN t END) OVER (), 9223372036854775807) AS at FROM grouped) "
            "SELECT {2}, rowid, correlationId, start, 1, rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME "
            "WHERE globalTid BETWEEN {0} AND {1} AND correlationId IS NOT NULL "
            "UNION ALL SELECT {3}, row, raw, at, t IS NOT NULL, pushed FROM placed "
            "ORDER BY 4, 1, 6, 2",
            global_pid, last_tid, static_cast<int64_t>(kCalls), static_cast<int64_t>(kMappings),
            order == UnwrapOrder::kCallsAndMappings ? 1 : 0));
    while (handouts.next()) {
      const Table table = handouts.column_int(0) == kCalls ? kCalls : kMappings;
      const uint64_t raw = to_u64(handouts.column_int(2));
      const bool timed = handouts.column_int(4) != 0;
      const uint64_t id =
          unwrap.next(raw, timed ? std::optional(to_u64(handouts.column_int(3))) : std::nullopt);
      if (id != raw) changes.add(table, handouts.column_int(1), id);
    }
    unwrap.finish();
    if (!unwrap.wrapped()) return false;
    changes.apply(kCalls, "CUPTI_ACTIVITY_KIND_RUNTIME");
    changes.apply(kMappings, "GPROF_EXTERNAL_CORRELATION");
  } else {
    // The CUPTI id of each mapping, timed by the first call that pushed its
    // id (-1: no such call in the file).
    Statement mapping(
        db.handle(),
        fmt::format("SELECT e.rowid, e.correlationId, coalesce((SELECT min(r.start) FROM "
                    "CUPTI_ACTIVITY_KIND_RUNTIME AS r WHERE r.correlationId = e.externalId AND "
                    "r.globalTid BETWEEN {0} AND {1}), -1) FROM GPROF_EXTERNAL_CORRELATION AS e "
                    "WHERE e.globalPid = {0} ORDER BY e.externalId, e.rowid",
                    global_pid, last_tid));
    while (mapping.next()) {
      const uint64_t raw = to_u64(mapping.column_int(1));
      const int64_t start = mapping.column_int(2);
      const uint64_t id = unwrap.next(raw, start < 0 ? std::nullopt : std::optional(to_u64(start)));
      if (id != raw) changes.add(kMappings, mapping.column_int(0), id);
    }
    unwrap.finish();
    if (!unwrap.wrapped()) return false;
    changes.apply(kMappings, "GPROF_EXTERNAL_CORRELATION");
  }
  // Each by when it started (the GPU work), or began (the launch): one
  // UPDATE a table through a function of this pass, which SQLite runs as it
  // scans the rows (rewriting them by rowid took twice the load's time).
  const auto at = [](sqlite3_context* context, int, sqlite3_value** args) {
    const auto* unwrapped =
        static_cast<const analysis::CorrelationUnwrap*>(sqlite3_user_data(context));
    const uint64_t raw = to_u64(sqlite3_value_int64(args[0]));
    const uint64_t start = to_u64(sqlite3_value_int64(args[1]));
    sqlite3_result_int64(context, static_cast<int64_t>(unwrapped->at(raw, start)));
  };
  if (sqlite3_create_function(db.handle(), "gprof_unwrap_at", 2,
                              SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, &unwrap, at,
                              nullptr, nullptr) != SQLITE_OK)
    throw std::runtime_error(sqlite3_errmsg(db.handle()));
  const auto by_start = [&](const char* table) {
    db.exec(
        fmt::format("UPDATE {0} SET correlationId = gprof_unwrap_at(correlationId, start) "
                    "WHERE globalPid = {1} AND correlationId IS NOT NULL",
                    table, global_pid));
  };
  for (const char* table : kGpuTables) by_start(table);
  if (!external_only) by_start(kLaunches);
  sqlite3_create_function(db.handle(), "gprof_unwrap_at", 2, SQLITE_UTF8, nullptr, nullptr, nullptr,
                          nullptr);
  return true;
}

}  // namespace gprof::exporter
