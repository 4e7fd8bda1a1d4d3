// The database written from hand-built sidecar files, read back through
// libsqlite3: rows, names through StringIds, correlation joins, and the
// fixes made after the load (external correlations, capture windows, shared
// memory).
#include <sqlite3.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "test/unit/formats/sidecar_builder.h"
#include "test/unit/tools/gpu_fixtures.h"
#include "tools/export/database_writer.h"
#include "tools/export/sqlite_db.h"

namespace gprof::exporter {
namespace {

using test::make_kernel;
using test::make_launch;
using test::SidecarBuilder;

// A fresh database path (the writer creates it) in the scratch directory.
std::string database_path(const std::string& name) {
  const std::string path = test::write_temp_file(name, "");
  std::remove(path.c_str());
  return path;
}

class Db {
 public:
  explicit Db(const std::string& path) { REQUIRE(sqlite3_open(path.c_str(), &db_) == SQLITE_OK); }
  ~Db() { sqlite3_close(db_); }
  int64_t integer(const std::string& sql) {
    Statement s(db_, sql);
    REQUIRE(s.next());
    return s.column_int(0);
  }
  std::string text(const std::string& sql) {
    Statement s(db_, sql);
    REQUIRE(s.next());
    return s.column_text(0);
  }

 private:
  sqlite3* db_ = nullptr;
};

ExportSummary write(const std::vector<std::string>& inputs, const std::string& out) {
  ExportSummary summary = write_database(inputs, out);
  REQUIRE(summary.ok());
  return summary;
}

}  // namespace

TEST_CASE("a subscribed capture: every call, GPU record and name") {
  const std::string in = test::write_subscribed_capture("export_subscribed.gprof");
  const std::string out = database_path("export_subscribed.sqlite");
  const ExportSummary summary = write({in}, out);
  CHECK(summary.rows == 7 + 8);
  Db db(out);
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME") == 7);
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") == 4);
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY") == 2);
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET") == 1);
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION") == 1);
  // square: 4000 + 6000 + 100 (the unpaired one counts, as in report).
  CHECK(db.integer("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds "
                   "AS s ON s.id = k.demangledName WHERE s.value = 'square(float*, int)'") ==
        10100);
  CHECK(db.text("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON "
                "s.id = k.shortName WHERE k.correlationId = 1") == "square");
  CHECK(db.text("SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON "
                "s.id = k.mangledName WHERE k.correlationId = 1") == "_Z6squarePfi");
  // Launches join their kernels; __cudaLaunchKernel_ptsz is named as users know it.
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN "
                   "CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = k.correlationId AND "
                   "r.globalTid / 0x1000000 = k.globalPid / 0x1000000") == 3);
  CHECK(db.text("SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r JOIN StringIds AS s ON "
                "s.id = r.nameId WHERE r.correlationId = 3") == "cudaLaunchKernel");
  CHECK(db.integer("SELECT globalTid % 0x1000000 FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1") == 10);
  CHECK(db.integer("SELECT globalPid / 0x1000000 % 0x1000000 FROM CUPTI_ACTIVITY_KIND_KERNEL "
                   "LIMIT 1") == 42);
  // nsys's memory kind numbering (pageable 0, device 2, pinned 1), through the enum tables.
  CHECK(db.text("SELECT printf('%s %s %s', o.label, s.label, d.label) FROM "
                "CUPTI_ACTIVITY_KIND_MEMCPY AS m JOIN ENUM_CUDA_MEMCPY_OPER AS o ON o.id = "
                "m.copyKind JOIN ENUM_CUDA_MEM_KIND AS s ON s.id = m.srcKind JOIN "
                "ENUM_CUDA_MEM_KIND AS d ON d.id = m.dstKind WHERE m.correlationId = 7") ==
        "Device-to-Host Device Pinned");
  CHECK(db.text("SELECT e.label FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION AS s JOIN "
                "ENUM_CUPTI_SYNC_TYPE AS e ON e.id = s.syncType") == "Stream sync");
  CHECK(db.integer("SELECT value FROM CUPTI_ACTIVITY_KIND_MEMSET") == 0xff);
  CHECK(db.text("SELECT processName FROM GPROF_FILES") == "train");
  CHECK(db.text("SELECT s.value FROM ThreadNames AS t JOIN StringIds AS s ON s.id = t.nameId "
                "WHERE t.globalTid % 0x1000000 = 42") == "train");
}

TEST_CASE("external correlations: GPU work carries the id its call was given") {
  // gprof could not subscribe: calls carry the ids it pushed (1001...),
  // CUPTI's records their own (1...), mapped by external correlation records.
  SidecarBuilder file;
  pb::CuptiStatus status;
  status.set_state(pb::CuptiStatus::EXTERNAL_CORRELATION);
  file.header(test::test_header())
      .cupti(status)
      .strings({{1, "_Z6squarePfi"}})
      .gpu({make_kernel(1, 1500, 4000, 1), make_kernel(1, 6000, 1000, 2)})
      .external({{1, 1001}, {2, 1002}})
      .calls(10, {make_launch(ApiId::cudaLaunchKernel, 1000, 200, 1, 1001),
                  make_launch(ApiId::cudaLaunchKernel, 2000, 200, 1, 1002)});
  const std::string in = test::write_temp_file("export_external.gprof", file.bytes());
  const std::string out = database_path("export_external.sqlite");
  write({in}, out);
  Db db(out);
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN "
                   "CUPTI_ACTIVITY_KIND_RUNTIME AS r USING (correlationId)") == 2);
  CHECK(db.integer("SELECT sum(correlationId) FROM CUPTI_ACTIVITY_KIND_KERNEL") == 2003);
  CHECK(db.integer("SELECT count(*) FROM GPROF_EXTERNAL_CORRELATION") == 2);
}

// gpu_fixtures.h: six launches whose 32-bit CUPTI ids wrapped; the fifth
// has the first's id as recorded.
void check_wrapped(Db& db) {
  // Each kernel joins one call, its own (it ran 500 ns after the call began).
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN "
                   "CUPTI_ACTIVITY_KIND_RUNTIME AS r USING (correlationId)") == 6);
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN "
                   "CUPTI_ACTIVITY_KIND_RUNTIME AS r USING (correlationId) "
                   "WHERE k.start = r.start + 500") == 6);
  // The launch's dynamic shared memory, split out of its own kernel's.
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE staticSharedMemory = "
                   "1024 AND dynamicSharedMemory = (start - 500) / 1000 * 16") == 6);
}

TEST_CASE("CUPTI ids that wrap: each kernel joins its own call") {
  const std::string in = test::write_wrapped_capture("export_wrapped.gprof", false);
  const std::string out = database_path("export_wrapped.sqlite");
  write({in}, out);
  Db db(out);
  check_wrapped(db);
  // Unwrapped: the recorded id in the low 32 bits, the fifth call past 2^32.
  CHECK(db.integer("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE start = 5000") ==
        static_cast<int64_t>(test::wrapped_id(4)));
  CHECK(db.integer("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE start = 5500") ==
        static_cast<int64_t>(test::wrapped_id(4)));
  CHECK(db.integer("SELECT correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE start = 1000") ==
        1);
}

TEST_CASE("CUPTI ids that wrap in external mode: unwrapped in push order") {
  const std::string in = test::write_wrapped_capture("export_wrapped_external.gprof", true);
  const std::string out = database_path("export_wrapped_external.sqlite");
  write({in}, out);
  Db db(out);
  check_wrapped(db);
  CHECK(db.integer("SELECT max(correlationId) FROM GPROF_EXTERNAL_CORRELATION") ==
        static_cast<int64_t>(test::wrapped_id(5)));
  CHECK(db.integer("SELECT sum(correlationId) FROM CUPTI_ACTIVITY_KIND_KERNEL") == 21);
}

TEST_CASE("a capture window drops GPU work of calls outside it, as report does") {
  pb::FileHeader header = test::capture_window_header();
  SidecarBuilder file;
  file.header(header)
      .cupti(test::subscribed_status())
      .strings({{1, "_Z6squarePfi"}})
      .gpu({make_kernel(1, 1500, 4000, 1), make_kernel(1, 100, 50, 7)})
      .calls(10, {make_launch(ApiId::cudaLaunchKernel, 1000, 200, 1, 1)});
  const std::string in = test::write_temp_file("export_window.gprof", file.bytes());
  const std::string out = database_path("export_window.sqlite");
  const ExportSummary summary = write({in}, out);
  CHECK(summary.files[0].gpu.outside_window == 1);
  CHECK(summary.files[0].gpu.kernels == 1);
  Db db(out);
  CHECK(db.integer("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL") == 1);
  CHECK(db.integer("SELECT gpuOutsideWindow FROM GPROF_FILES") == 1);
  CHECK(db.text("SELECT value FROM GPROF_CONFIG WHERE name = 'capture'") == "cudaProfilerApi");
}

TEST_CASE("a kernel's shared memory: the launch's dynamic part split from CUPTI's total") {
  ApiRecord launch = make_launch(ApiId::cudaLaunchKernel, 1000, 200, 1, 1);
  launch.shared_mem = 256;
  GpuRecord kernel = make_kernel(1, 1500, 4000, 1);
  kernel.shared_mem = 1024 + 256;
  GpuRecord plain = make_kernel(1, 6000, 100, 2);
  plain.shared_mem = 512;
  SidecarBuilder file;
  file.header(test::test_header())
      .cupti(test::subscribed_status())
      .strings({{1, "_Z6squarePfi"}})
      .gpu({kernel, plain})
      .calls(10, {launch, make_launch(ApiId::cudaLaunchKernel, 2000, 200, 1, 2)});
  const std::string in = test::write_temp_file("export_shared.gprof", file.bytes());
  const std::string out = database_path("export_shared.sqlite");
  write({in}, out);
  Db db(out);
  CHECK(db.text("SELECT printf('%d+%d', staticSharedMemory, dynamicSharedMemory) FROM "
                "CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 1") == "1024+256");
  CHECK(db.text("SELECT printf('%d+%d', staticSharedMemory, dynamicSharedMemory) FROM "
                "CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 2") == "512+0");
}

TEST_CASE("NVTX ranges, marks and domains; PyTorch's numbers in GPROF_NVTX") {
  RangeEvent push = test::make_range_event(RangeOp::kPush, 100, 1);
  push.seq = 13;  // torch sequence_nr 12
  push.op_id = 40;
  RangeEvent inner = test::make_range_event(RangeOp::kPush, 150, 2);
  inner.domain = 3;
  RangeEvent mark = test::make_range_event(RangeOp::kMark, 160, 2);
  RangeEvent inner_pop = test::make_range_event(RangeOp::kPop, 170);
  inner_pop.domain = 3;  // push/pop stacks are per domain
  SidecarBuilder file;
  file.header(test::test_header())
      .named(pb::StringEntry::NVTX, {{1, "aten::mm"}, {2, "step"}})
      .named(pb::StringEntry::DOMAIN, {{3, "mydomain"}})
      .ranges(10, {push, inner, mark, inner_pop, test::make_range_event(RangeOp::kPop, 200)});
  const std::string in = test::write_temp_file("export_nvtx.gprof", file.bytes());
  const std::string out = database_path("export_nvtx.sqlite");
  write({in}, out);
  Db db(out);
  CHECK(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 59") == 2);
  CHECK(db.integer("SELECT end FROM NVTX_EVENTS WHERE text = 'aten::mm'") == 200);
  CHECK(db.integer("SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34 AND end IS NULL") == 1);
  CHECK(db.text("SELECT d.text FROM NVTX_EVENTS AS r JOIN NVTX_EVENTS AS d ON d.domainId = "
                "r.domainId AND d.eventType = 75 WHERE r.eventType = 59 AND r.text = 'step'") ==
        "mydomain");
  CHECK(db.text("SELECT s.value FROM GPROF_NVTX AS g JOIN StringIds AS s ON s.id = g.rowNameId "
                "JOIN NVTX_EVENTS AS e USING (eventId) WHERE e.eventType = 59 AND e.text = "
                "'step'") == "mydomain:step");
  CHECK(db.text("SELECT printf('%d %d', seq, opId) FROM GPROF_NVTX AS g JOIN NVTX_EVENTS AS e "
                "USING (eventId) WHERE e.text = 'aten::mm'") == "12 40");
}

TEST_CASE("ranges are written as they close, numbered in the order they opened") {
  using test::make_range_event;
  RangeEvent late = make_range_event(RangeOp::kPush, 140, 4);
  late.domain = 5;
  RangeEvent late_pop = make_range_event(RangeOp::kPop, 150);
  late_pop.domain = 5;
  SidecarBuilder file;
  file.header(test::test_header())
      .named(pb::StringEntry::NVTX, {{1, "outer"}, {2, "inner"}, {3, "mark"}})
      .ranges(10,
              {make_range_event(RangeOp::kPush, 100, 1), make_range_event(RangeOp::kPush, 110, 2),
               make_range_event(RangeOp::kMark, 120, 3), make_range_event(RangeOp::kPop, 130), late,
               late_pop, make_range_event(RangeOp::kStart, 160, 2, 77),
               make_range_event(RangeOp::kPop, 200), make_range_event(RangeOp::kPush, 210, 1)})
      .ranges(11, {make_range_event(RangeOp::kEnd, 220, 0, 77)})
      // Named after the range that uses them was written: the rows get them all the same.
      .named(pb::StringEntry::NVTX, {{4, "late"}})
      .named(pb::StringEntry::DOMAIN, {{5, "dom"}});
  const std::string in = test::write_temp_file("export_nvtx_order.gprof", file.bytes());
  const std::string out = database_path("export_nvtx_order.sqlite");
  write({in}, out);
  Db db(out);
  CHECK(db.text("SELECT group_concat(printf('%s@%d', text, start), ' ') FROM (SELECT text, start "
                "FROM NVTX_EVENTS ORDER BY eventId)") ==
        "outer@100 inner@110 mark@120 late@140 inner@160 outer@210 dom@140");
  CHECK(db.text("SELECT group_concat(s.value, ' ') FROM (SELECT rowNameId FROM GPROF_NVTX "
                "ORDER BY eventId) JOIN StringIds AS s ON s.id = rowNameId") ==
        "outer inner mark dom:late inner outer");
  CHECK(db.text("SELECT printf('%d %d', end, openAtExit) FROM NVTX_EVENTS JOIN GPROF_NVTX USING "
                "(eventId) WHERE start = 160") == "220 0");
  CHECK(db.integer("SELECT openAtExit FROM GPROF_NVTX JOIN NVTX_EVENTS USING (eventId) WHERE "
                   "start = 210") == 1);
}

TEST_CASE("two files of one pid stay apart; an unreadable file stops the export") {
  const std::string a = test::write_subscribed_capture("export_rank_a.gprof");
  const std::string b = test::write_subscribed_capture("export_rank_b.gprof");
  const std::string out = database_path("export_ranks.sqlite");
  write({a, b}, out);
  Db db(out);
  CHECK(db.integer("SELECT count(DISTINCT globalPid) FROM CUPTI_ACTIVITY_KIND_KERNEL") == 2);
  CHECK(db.integer("SELECT count(DISTINCT globalPid / 0x1000000 % 0x1000000) FROM "
                   "CUPTI_ACTIVITY_KIND_KERNEL") == 1);
  CHECK(db.integer("SELECT count(*) FROM GPROF_FILES") == 2);

  const std::string junk = test::write_temp_file("export_junk.gprof", "not a sidecar file");
  const std::string out2 = database_path("export_junk.sqlite");
  const ExportSummary summary = write_database({a, junk}, out2);
  CHECK_FALSE(summary.ok());
  CHECK(summary.files.back().path == junk);
  CHECK_FALSE(summary.files.back().status.error.empty());
  std::remove(out2.c_str());
}

}  // namespace gprof::exporter
